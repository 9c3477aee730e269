using Snapper.Checkpointing;
using Snapper.Logging;
using Snapper.Recovery;
using Snapper.Tests.Infrastructure;

namespace Snapper.Tests.Recovery;

/// <summary>
/// Start-up and checkpoints read the logs in two streaming passes that decode only what each pass
/// needs (<see cref="LogScan"/>); what they compute must be what decoding everything computes.
/// </summary>
public sealed class LogScanTests
{
    private const long Round = 500_000;
    private static readonly string[] Logs = ["snapper-own-0", "snapper-own-1", "snapper-other-0"];
    private static readonly HashSet<string> Own = ["snapper-own-0", "snapper-own-1"];

    [Theory]
    [InlineData(1)]
    [InlineData(2)]
    [InlineData(3)]
    public async Task Streaming_evaluation_and_checkpoint_agree_with_decoding_every_record(int seed)
    {
        var storage = await WriteAsync(Generate(seed));
        var decoded = await LogRecovery.ReadAllAsync(storage, CancellationToken.None);

        var expected = LogEvaluation.Of([.. decoded.SelectMany(l => l.Records)]);
        var (streamed, records, _) = await LogEvaluation.ReadAsync(storage, CancellationToken.None);
        Assert.Equal(decoded.Sum(l => l.Records.Count), records);
        Assert.Equal(expected.MaxTid, streamed.MaxTid);
        Assert.Equal(expected.CommittedActs.Order(), streamed.CommittedActs.Order());
        Assert.Equal(expected.CommittedBatches.Order(), streamed.CommittedBatches.Order());
        Assert.True(expected.States.Count > 10, $"only {expected.States.Count} actors have a committed state: the generator is too tame");
        Assert.Equal(Describe(expected.States), Describe(streamed.States));

        var checkpoint = CheckpointContent.Of(Round, decoded, Own);
        var streamedCheckpoint = await CheckpointContent.ReadAsync(Round, storage, Own, CancellationToken.None);
        Assert.True(checkpoint.SealedRecords > 0 && checkpoint.Decisions.Count > 0);
        Assert.Equal(checkpoint.SealedRecords, streamedCheckpoint.SealedRecords);
        Assert.Equal(checkpoint.RecordsRead, streamedCheckpoint.RecordsRead);
        Assert.Equal(checkpoint.MaxTid, streamedCheckpoint.MaxTid);
        Assert.Equal(Encode(checkpoint.States), Encode(streamedCheckpoint.States));
        Assert.Equal(Encode(checkpoint.Decisions), Encode(streamedCheckpoint.Decisions));
    }

    [Fact]
    public async Task A_second_pass_reads_only_what_the_first_saw_even_when_the_log_grew_in_between()
    {
        var storage = new InMemoryLogStorage();
        await storage.AppendAsync("snapper-a-0", [LogRecordCodec.Encode(new TidReservationRecord(1)), LogRecordCodec.Encode(new TidReservationRecord(2))], CancellationToken.None);
        await storage.AppendAsync("not-snapper", [LogRecordCodec.Encode(new TidReservationRecord(3))], CancellationToken.None);
        var counts = await LogScan.ForEachAsync(storage, null, (_, _, _) => { }, CancellationToken.None);
        Assert.Equal(new Dictionary<string, int> { ["snapper-a-0"] = 2 }, counts);

        await storage.AppendAsync("snapper-a-0", [LogRecordCodec.Encode(new TidReservationRecord(4))], CancellationToken.None);
        await storage.AppendAsync("snapper-b-0", [LogRecordCodec.Encode(new TidReservationRecord(5))], CancellationToken.None);
        var seen = new List<(string, int, long)>();
        await LogScan.ForEachAsync(storage, counts, (log, index, record) => seen.Add((log, index, LogRecordCodec.Peek(record).Tid)), CancellationToken.None);
        Assert.Equal([("snapper-a-0", 0, 1L), ("snapper-a-0", 1, 2L)], seen);
    }

    [Fact]
    public async Task A_record_of_a_version_this_build_does_not_read_stops_recovery_naming_the_log_and_the_record()
    {
        var storage = new InMemoryLogStorage();
        var future = LogRecordCodec.Encode(new TidReservationRecord(2));
        future[0] = LogRecordCodec.CurrentVersion + 1;
        await storage.AppendAsync("snapper-a-0", [LogRecordCodec.Encode(new TidReservationRecord(1)), future], CancellationToken.None);

        var error = await Assert.ThrowsAsync<InvalidDataException>(() => LogEvaluation.ReadAsync(storage, CancellationToken.None));
        Assert.Contains("'snapper-a-0'", error.Message);
        Assert.Contains("record 1", error.Message);
        Assert.Contains($"format version {LogRecordCodec.CurrentVersion + 1}", error.Message);
    }

    // ACTs (some undecided, some depending on others), batches (some undecided, each depending on
    // the one before), one-phase commits, an earlier checkpoint's decisions and, half way, this
    // round's seal in each own log; spread over three logs.
    private static List<(string Log, LogRecord Record)> Generate(int seed)
    {
        var random = new Random(seed);
        var versions = new Dictionary<ActorId, long>();
        var records = new List<(string, LogRecord)>();
        string AnyLog() => Logs[random.Next(Logs.Length)];
        ActorId AnyActor() => ActorId.Create<ITestActor>($"k{random.Next(40)}");
        long Next(ActorId actor) => versions[actor] = versions.GetValueOrDefault(actor) + 1;
        ReadOnlyMemory<byte> State() => BitConverter.GetBytes(random.NextInt64());

        long tid = 100, bid = 1, lastAct = 0;
        const int Steps = 3_000;
        for (var step = 0; step < Steps; step++)
        {
            if (step == Steps / 2)
            {
                foreach (var log in Own)
                {
                    records.Add((log, new CheckpointSealRecord(Round)));
                }
            }

            switch (random.Next(10))
            {
                case < 5:
                    {
                        var actor = AnyActor();
                        tid++;
                        records.Add((AnyLog(), new PrepareRecord(tid, actor, actor, State()) { Version = Next(actor) }));
                        if (random.Next(10) < 8)
                        {
                            records.Add((AnyLog(), new CoordCommitRecord(tid) { DependsOn = random.Next(10) == 0 && lastAct != 0 ? [lastAct] : [] }));
                        }

                        lastAct = tid;
                        break;
                    }

                case < 8:
                    {
                        bid += 2;
                        var log = AnyLog();
                        foreach (var actor in Enumerable.Range(0, random.Next(1, 4)).Select(_ => AnyActor()).Distinct())
                        {
                            records.Add((AnyLog(), new BatchCompleteRecord(bid, actor, "coordinator/0", random.Next(5) == 0 ? ReadOnlyMemory<byte>.Empty : State()) { Version = Next(actor) }));
                        }

                        if (random.Next(10) < 9)
                        {
                            records.Add((log, new BatchCommitRecord(bid) { DependsOn = bid - 2 }));
                        }

                        break;
                    }

                case 8:
                    {
                        var actor = AnyActor();
                        records.Add((AnyLog(), new CommitRecord(++tid, actor, State()) { Version = Next(actor) }));
                        break;
                    }

                default:
                    records.Add((AnyLog(), new CommittedDecisionsRecord(Round - 1) { Acts = [lastAct, 7], Batches = [bid, 1] }));
                    break;
            }
        }

        return records;
    }

    private static async Task<InMemoryLogStorage> WriteAsync(List<(string Log, LogRecord Record)> records)
    {
        var storage = new InMemoryLogStorage();
        foreach (var (log, record) in records)
        {
            await storage.AppendAsync(log, [LogRecordCodec.Encode(record)], CancellationToken.None);
        }

        return storage;
    }

    private static List<string> Describe(IReadOnlyDictionary<ActorId, CommittedState> states) =>
        [.. states.OrderBy(s => s.Key.Key, StringComparer.Ordinal).Select(s => $"{s.Key.Key} v{s.Value.Version} {Convert.ToHexString(s.Value.State.Span)}")];

    private static List<string> Encode(IEnumerable<LogRecord> records) =>
        [.. records.Select(r => Convert.ToHexString(LogRecordCodec.Encode(r))).Order(StringComparer.Ordinal)];
}

using Microsoft.Extensions.DependencyInjection;
using SmallBank;
using Snapper.Checkpointing;
using Snapper.Hosting;
using Snapper.Logging;
using Snapper.Recovery;
using Snapper.Tests.Infrastructure;
using Snapper.Configuration;

namespace Snapper.Tests.Recovery;

/// <summary>A checkpoint truncates the logs, and recovery from what is left is what it was from everything.</summary>
public sealed class CheckpointTests : IDisposable
{
    private const long Round = 77;
    private const string Own = "snapper-own-0";
    private const string Other = "snapper-other-0";
    private readonly string directory = Path.Combine(Path.GetTempPath(), $"snapper-checkpoint-{Guid.NewGuid():N}");

    private static ActorId Actor(string key) => ActorId.Create<ITestActor>(key);

    private static ReadOnlyMemory<byte> State(int value) => new byte[] { (byte)value };

    [Fact]
    public void What_a_checkpoint_writes_in_place_of_the_sealed_records_recovers_the_same_states_and_tids()
    {
        List<LogRecord> own =
        [
            new PrepareRecord(5, Actor("a"), Actor("a"), State(11)) { Version = 1 },
            new CoordCommitRecord(5),
            new PrepareRecord(6, Actor("b"), Actor("b"), State(12)) { Version = 1 }, // its CoordCommit is in the other log
            new CoordCommitRecord(7),                                                  // its Prepare is in the other log
            new PrepareRecord(8, Actor("aborted"), Actor("aborted"), State(99)) { Version = 1 }, // never decided
            new BatchCompleteRecord(20, Actor("e"), "silo/0", State(21)) { Version = 1 },
            new BatchCommitRecord(20),
            new TidReservationRecord(1_000),
            new CheckpointSealRecord(Round),
            new PrepareRecord(9, Actor("a"), Actor("a"), State(15)) { Version = 2 },
            new CoordCommitRecord(9),
            new BatchCompleteRecord(30, Actor("f"), "silo/0", State(31)) { Version = 1 },
            new BatchCommitRecord(30) { DependsOn = 20 },                               // counts only if batch 20 did
        ];
        List<LogRecord> other =
        [
            new CoordCommitRecord(6),
            new PrepareRecord(7, Actor("c"), Actor("c"), State(13)) { Version = 1 },
            new CoordCommitRecord(10) { DependsOn = [7] },                              // early lock release: counts only if 7 did
            new PrepareRecord(10, Actor("d"), Actor("d"), State(14)) { Version = 1 },
        ];
        var everything = LogEvaluation.Of([.. own, .. other]);

        var content = CheckpointContent.Of(Round, [(Own, own), (Other, other)], new HashSet<string> { Own });
        Assert.Equal(8, content.SealedRecords);
        List<LogRecord> truncated = [.. own.Skip(8), .. content.States, .. content.Decisions, content.MaxTid];
        var left = LogEvaluation.Of([.. truncated, .. other]);

        Assert.Equal(["a", "b", "c", "d", "e", "f"], everything.States.Keys.Select(a => a.Key).Order());
        Assert.Equal(everything.States.Keys.Select(a => a.Key).Order(), left.States.Keys.Select(a => a.Key).Order());
        foreach (var (actor, state) in everything.States)
        {
            Assert.Equal(state.Version, left.States[actor].Version);
            Assert.Equal(state.State.ToArray(), left.States[actor].State.ToArray());
        }

        Assert.Equal(everything.MaxTid, left.MaxTid);

        // A second round over what the first left: the first's decisions are not written again.
        truncated.Add(new CheckpointSealRecord(Round + 1));
        var second = CheckpointContent.Of(Round + 1, [(Own, truncated), (Other, other)], new HashSet<string> { Own });
        var afterSecond = LogEvaluation.Of([new CheckpointSealRecord(Round + 1), .. second.States, .. second.Decisions, second.MaxTid, .. other]);
        Assert.Equal(everything.States.Keys.Select(a => a.Key).Order(), afterSecond.States.Keys.Select(a => a.Key).Order());
        Assert.True(second.Decisions.Sum(d => d.Acts.Length) <= content.Decisions.Sum(d => d.Acts.Length));
    }

    [Fact]
    public async Task A_checkpoint_round_is_measured_on_the_Snapper_meter()
    {
        var rounds = new System.Collections.Concurrent.ConcurrentQueue<(double Ms, object? Outcome)>();
        using var listener = new System.Diagnostics.Metrics.MeterListener();
        listener.InstrumentPublished = (instrument, l) =>
        {
            if (instrument.Meter.Name == SnapperDiagnostics.MeterName && instrument.Name == SnapperDiagnostics.CheckpointInstrument)
            {
                l.EnableMeasurementEvents(instrument);
            }
        };
        listener.SetMeasurementEventCallback<double>((_, ms, tags, _) => rounds.Enqueue((ms, tags.ToArray().Single(t => t.Key == "outcome").Value)));
        listener.Start();
        await using var silo = await TestSilo.StartAsync(s => s.Configure(o => o.Logging = LoggingMode.RegisteredStorage));
        await silo.Client.RunAct<ITestActor>(Actor("measured"), (a, ctx) => a.Add(ctx, 1));

        await silo.Grains.GetGrain<ICheckpointer>(0).Run();

        Assert.Contains(rounds, r => Equals(r.Outcome, "done") && r.Ms >= 0);
    }

    [Fact]
    public async Task Checkpoints_under_load_shrink_the_file_logs_and_a_restart_has_every_acknowledged_commit()
    {
        void FileLogging(SnapperBuilder s) => s.Configure(o =>
        {
            o.Logging = LoggingMode.File;
            o.LogDirectory = directory;
            o.LoggerCount = 2;
            o.CoordinatorCount = 2;
            o.EarlyLockRelease = true;
            o.CheckpointInterval = TimeSpan.Zero; // rounds run when the test says
        });

        var accounts = Enumerable.Range(0, 6).Select(i => ActorId.Create<IAccountActor>(i)).ToArray();
        Dictionary<ActorId, decimal> before;
        int committed, recordsAfter;
        List<CheckpointReport> rounds;
        await using (var first = await TestSilo.StartAsync(FileLogging))
        {
            (committed, rounds) = await LoadWithRounds(first, accounts);
            before = await Balances(first, accounts);
            var storage = first.Services.GetRequiredService<ILogStorage>();
            rounds.Add(await first.Grains.GetGrain<ICheckpointer>(0).Run());
            recordsAfter = (await LogRecovery.ReadAllAsync(storage, CancellationToken.None)).Sum(l => l.Records.Count);
        }

        Assert.True(committed > 100, $"only {committed} transactions committed");
        Assert.All(rounds, r => Assert.Equal(1, r.Silos));
        Assert.All(rounds.Take(3), r => Assert.True(r.RecordsSealed > 0 && r.States > 0, $"round {r.Round} sealed {r.RecordsSealed} record(s) and wrote {r.States} state(s)"));

        // Every committed transaction logged at least one record; what is left is about one per actor.
        Assert.True(recordsAfter < committed / 4, $"{recordsAfter} records left after {committed} commits");

        await using var second = await TestSilo.StartAsync(FileLogging);
        Assert.Equal(before, await Balances(second, accounts));

        Assert.Equal(accounts.Length * 2 * Account.InitialBalance, before.Values.Sum());
    }

    [Fact]
    public async Task Checkpoints_of_two_silos_sharing_a_storage_keep_every_commit_across_a_restart()
    {
        // Each silo truncates only its own logs; an ACT's Prepare and CoordCommit, or a batch's
        // BatchComplete and BatchCommit, are often in the two silos' logs.
        var storage = new InMemoryLogStorage();
        void Options(SnapperBuilder s) => s.Configure(o =>
        {
            o.CoordinatorCount = 1;
            o.EarlyLockRelease = true;
            o.CheckpointInterval = TimeSpan.Zero;
        });

        var accounts = Enumerable.Range(0, 6).Select(i => ActorId.Create<IAccountActor>(i)).ToArray();
        Dictionary<ActorId, decimal> before;
        List<CheckpointReport> rounds;
        await using (var first = await TestSilo.StartAsync(Options, services => services.AddSingleton<ILogStorage>(storage), silos: 2))
        {
            (_, rounds) = await LoadWithRounds(first, accounts);
            before = await Balances(first, accounts);
        }

        Assert.All(rounds, r => Assert.Equal(2, r.Silos));
        Assert.All(rounds, r => Assert.True(r.RecordsSealed > 0, $"round {r.Round} sealed nothing"));
        await using var second = await TestSilo.StartAsync(Options, services => services.AddSingleton<ILogStorage>(storage));
        Assert.Equal(before, await Balances(second, accounts));

        Assert.Equal(accounts.Length * 2 * Account.InitialBalance, before.Values.Sum());
    }

    public void Dispose()
    {
        if (Directory.Exists(directory))
        {
            Directory.Delete(directory, recursive: true);
        }
    }

    // Three phases of load, each with a round run while transactions of both kinds are in flight
    // (once the phase has commits, so the round has states to write).
    private static async Task<(int Committed, List<CheckpointReport> Rounds)> LoadWithRounds(TestSilo silo, ActorId[] accounts)
    {
        var checkpointer = silo.Grains.GetGrain<ICheckpointer>(0);
        var (committed, rounds) = (0, new List<CheckpointReport>());
        for (var phase = 0; phase < 3; phase++)
        {
            var atStart = Volatile.Read(ref committed);
            var load = Load(silo, accounts, 150, seed: phase, () => Interlocked.Increment(ref committed));
            await Poll.Until(() => Volatile.Read(ref committed) >= atStart + 20 || load.IsCompleted, "20 transactions of the phase committed");
            rounds.Add(await checkpointer.Run());
            await load;
        }

        return (committed, rounds);
    }

    private static async Task<Dictionary<ActorId, decimal>> Balances(TestSilo silo, ActorId[] accounts)
    {
        var balances = new Dictionary<ActorId, decimal>();
        foreach (var account in accounts)
        {
            balances[account] = await silo.Client.RunAct<IAccountActor, decimal>(account, (a, ctx) => a.Balance(ctx));
        }

        return balances;
    }

    // ACTs (early lock release) on accounts 0-2 and PACTs on 3-5, all at once.
    private static Task Load(TestSilo silo, ActorId[] accounts, int count, int seed, Action committed)
    {
        var random = new Random(seed);
        var amounts = Enumerable.Range(0, count).Select(_ => random.Next(1, 6)).ToArray();
        return Task.WhenAll(Enumerable.Range(0, count).Select(async i =>
        {
            try
            {
                if (i % 2 == 0)
                {
                    var ids = accounts[..3];
                    var from = ids[i % 3];
                    await silo.Client.RunAct<IAccountActor, decimal>(from, (a, ctx) => a.MultiTransfer(ctx, new MultiTransferInput(amounts[i], [.. ids.Where(x => x != from)])));
                }
                else
                {
                    var ids = accounts[3..];
                    var from = ids[i % 3];
                    var to = ids.Where(x => x != from).ToArray();
                    await silo.Client.RunPact<IAccountActor, decimal>(from, (a, ctx) => a.MultiTransfer(ctx, new MultiTransferInput(amounts[i], to)), AccessSet.Of(from).And(to[0]).And(to[1]));
                }

                committed();
            }
            catch (TransactionAbortedException)
            {
                // wait-die; the money is what matters
            }
        }));
    }
}

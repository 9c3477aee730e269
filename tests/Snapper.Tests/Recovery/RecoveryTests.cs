using Microsoft.Extensions.DependencyInjection;
using SmallBank;
using Snapper.Hosting;
using Snapper.Logging;
using Orleans.Serialization;
using Snapper.Serialization;
using Snapper.Tests.Infrastructure;
using Snapper.Configuration;

namespace Snapper.Tests.Recovery;

/// <summary>A silo that starts over existing logs comes back to the last committed state.</summary>
public sealed class RecoveryTests : IDisposable
{
    private readonly string directory = Path.Combine(Path.GetTempPath(), $"snapper-recovery-{Guid.NewGuid():N}");

    private static ActorId Actor(string key) => ActorId.Create<ITestActor>(key);

    [Fact]
    public async Task Only_decided_commits_are_recovered_and_undecided_ones_are_presumed_aborted()
    {
        var serializer = new ServiceCollection().AddSerializer().AddSingleton<IStateSerializer, OrleansStateSerializer>()
            .BuildServiceProvider().GetRequiredService<IStateSerializer>();
        ReadOnlyMemory<byte> State(int value) => serializer.Serialize(new Counter { Value = value });
        var storage = new InMemoryLogStorage();

        // One logger, so every record below sits in one log, in this order.
        LogRecord[] log =
        [
            new CommitRecord(3, Actor("one-phase"), State(7)),                   // single writer: committed
            new PrepareRecord(5, Actor("two-phase"), Actor("two-phase"), State(11)),
            new CoordCommitRecord(5),                                              // decided: committed
            new PrepareRecord(6, Actor("two-phase"), Actor("two-phase"), State(12)), // no CoordCommit: aborted
            new PrepareRecord(8, Actor("in-doubt"), Actor("in-doubt"), State(99)),   // no CoordCommit: aborted
            new BatchInfoRecord(20, "silo/0", [Actor("batch")]),
            new BatchCompleteRecord(20, Actor("batch"), "silo/0", State(21)),
            new BatchCommitRecord(20),                                             // decided: committed
            new BatchCompleteRecord(30, Actor("batch"), "silo/0", State(31)),             // no BatchCommit: aborted
        ];
        await storage.AppendAsync(LogWriterPool.LogName("an-earlier-silo", 0), [.. log.Select(r => (ReadOnlyMemory<byte>)LogRecordCodec.Encode(r))], CancellationToken.None);

        await using var silo = await TestSilo.StartAsync(s => s.Configure(o => o.LoggerCount = 1), services => services.AddSingleton<ILogStorage>(storage));

        Assert.Equal(7, await Read(silo, "one-phase"));
        Assert.Equal(11, await Read(silo, "two-phase"));
        Assert.Equal(0, await Read(silo, "in-doubt"));
        Assert.Equal(21, await Read(silo, "batch"));
        var next = await silo.Client.RunAct<ITestActor, TxnContext>(Actor("fresh"), (a, ctx) => a.Leak(ctx));
        Assert.True(next.Tid > 30, $"tid {next.Tid} does not continue after the logged tids");
    }

    [Fact]
    public async Task A_restarted_silo_hands_out_no_tid_again_even_one_whose_transaction_left_no_record()
    {
        var storage = new InMemoryLogStorage();
        long seen;
        await using (var silo = await TestSilo.StartAsync(configure: null, services => services.AddSingleton<ILogStorage>(storage)))
        {
            // A read-only ACT writes no record at all: only the ring's tid reservation covers its tid.
            seen = (await silo.Client.RunAct<ITestActor, TxnContext>(Actor("reader"), (a, ctx) => a.Leak(ctx))).Tid;
        }

        await using var restarted = await TestSilo.StartAsync(configure: null, services => services.AddSingleton<ILogStorage>(storage));
        var next = await restarted.Client.RunAct<ITestActor, TxnContext>(Actor("reader"), (a, ctx) => a.Leak(ctx));
        Assert.True(next.Tid > seen, $"tid {next.Tid} after the restart does not follow tid {seen} from before it");
    }

    [Fact]
    public async Task A_silo_restarted_on_its_log_files_has_every_acknowledged_commit()
    {
        void FileLogging(SnapperBuilder s) => s.Configure(o =>
        {
            o.Logging = LoggingMode.File;
            o.LogDirectory = directory;
            o.LoggerCount = 2;
            o.CoordinatorCount = 2;
        });

        var accounts = Enumerable.Range(0, 6).Select(i => ActorId.Create<IAccountActor>(i)).ToArray();
        var before = new Dictionary<ActorId, decimal>();
        var (committedActs, committedPacts) = (0, 0);
        long lastTid;
        await using (var first = await TestSilo.StartAsync(FileLogging))
        {
            var random = new Random(3);
            await Task.WhenAll(Enumerable.Range(0, 120).Select(async i =>
            {
                var picked = accounts.OrderBy(_ => random.Next()).Take(3).ToArray();
                var input = new MultiTransferInput(1 + (i % 5), picked[1..]);
                try
                {
                    // Accounts 0-2 see ACTs, 3-5 PACTs: both protocols' records must recover.
                    if (i % 2 == 0)
                    {
                        var actIds = accounts[..3];
                        var from = actIds[i % 3];
                        await first.Client.RunAct<IAccountActor, decimal>(from, (a, ctx) => a.MultiTransfer(ctx, new MultiTransferInput(input.Amount, [.. actIds.Where(x => x != from)])));
                        Interlocked.Increment(ref committedActs);
                    }
                    else
                    {
                        var pactIds = accounts[3..];
                        var from = pactIds[i % 3];
                        var to = pactIds.Where(x => x != from).ToArray();
                        await first.Client.RunPact<IAccountActor, decimal>(from, (a, ctx) => a.MultiTransfer(ctx, new MultiTransferInput(input.Amount, to)), AccessSet.Of(from).And(to[0]).And(to[1]));
                        Interlocked.Increment(ref committedPacts);
                    }
                }
                catch (TransactionAbortedException)
                {
                    // wait-die; the total is what matters
                }
            }));

            foreach (var account in accounts[..3])
            {
                before[account] = await first.Client.RunAct<IAccountActor, decimal>(account, (a, ctx) => a.Balance(ctx));
            }

            foreach (var account in accounts[3..])
            {
                before[account] = await first.Client.RunPact<IAccountActor, decimal>(account, (a, ctx) => a.Balance(ctx), AccessSet.Of(account));
            }

            lastTid = (await first.Client.RunAct<ITestActor, TxnContext>(Actor("tid"), (a, ctx) => a.Leak(ctx))).Tid;
        }

        await using var second = await TestSilo.StartAsync(FileLogging);
        foreach (var account in accounts)
        {
            Assert.Equal(before[account], await second.Client.RunAct<IAccountActor, decimal>(account, (a, ctx) => a.Balance(ctx)));
        }

        Assert.Equal(accounts.Length * 2 * Account.InitialBalance, before.Values.Sum());
        Assert.True(committedActs > 0 && committedPacts > 0, $"before the restart {committedActs} ACT(s) and {committedPacts} PACT(s) committed; both protocols' records must be there to recover");
        Assert.True((await second.Client.RunAct<ITestActor, TxnContext>(Actor("tid"), (a, ctx) => a.Leak(ctx))).Tid > lastTid);
    }

    [Fact]
    public async Task A_logged_state_that_no_longer_fits_the_state_type_fails_activation_naming_the_actor()
    {
        var storage = new InMemoryLogStorage();
        await storage.AppendAsync(LogWriterPool.LogName("an-earlier-silo", 0), [LogRecordCodec.Encode(new CommitRecord(1, Actor("bad"), "{\"Value\":\"not a number\"}"u8.ToArray()))], CancellationToken.None);
        await using var silo = await TestSilo.StartAsync(s => s.Configure(o => o.LoggerCount = 1), services => services.AddSingleton<ILogStorage>(storage));

        var failure = await Assert.ThrowsAsync<SnapperException>(() => silo.Client.RunAct<ITestActor, int>(Actor("bad"), (a, ctx) => a.Read(ctx)));
        Assert.Contains($"Actor {Actor("bad")}'s last committed state (version 0) cannot be read", failure.Message);
    }

    private static Task<int> Read(TestSilo silo, string key) => silo.Client.RunAct<ITestActor, int>(Actor(key), (a, ctx) => a.Read(ctx));

    public void Dispose()
    {
        if (Directory.Exists(directory))
        {
            Directory.Delete(directory, recursive: true);
        }
    }
}

using System.Collections.Concurrent;
using ListAppend;
using Microsoft.Extensions.DependencyInjection;
using Snapper.Act;
using Snapper.History;
using Snapper.Logging;
using Snapper.Tests.Hybrid;
using Snapper.Tests.Infrastructure;
using Snapper.Protocol;

namespace Snapper.Tests.Elr;

/// <summary>
/// Early lock release with commit dependencies (Thorp §II–§III): serializable alone and mixed with
/// PACTs, cascading aborts along a dependency chain, and crash recovery in the middle of chains.
/// </summary>
public sealed class EarlyLockReleaseTests
{
    private static readonly int Transactions =
        int.TryParse(Environment.GetEnvironmentVariable("SNAPPER_SOAK_TRANSACTIONS"), out var n) && n > 0 ? n : 400;

    internal static readonly TimeSpan ConsistencyDeadlockTimeout = TimeSpan.FromMilliseconds(500);

    private static ActorId Actor(string key) => ActorId.Create<ITestActor>(key);

    [Theory]
    [InlineData(0, 4)]
    [InlineData(0, 32)]
    [InlineData(50, 4)]
    [InlineData(90, 32)]
    public async Task List_appends_with_early_lock_release_alone_and_mixed_with_PACTs_are_serializable(int pactPercent, int actors)
    {
        // A log delay keeps prepares in flight, so later ACTs really build on undecided states. The
        // deadlock timeout leaves room for batches slowed by a loaded machine: with 20 ms every
        // hybrid ACT on 4 actors can time out, and the checker then sees no committed ACT.
        await using var silo = await TestSilo.StartAsync(s => s.Configure(o =>
        {
            o.LogWriteDelay = TimeSpan.FromMilliseconds(2);
            o.DeadlockTimeout = ConsistencyDeadlockTimeout;
        }));
        var ids = Enumerable.Range(0, actors).Select(i => ActorId.Create<IListActor>(i)).ToArray();
        var random = new Random((pactPercent * 31) + actors);
        var plans = Enumerable.Range(0, Transactions)
            .Select(_ => (Pact: random.Next(100) < pactPercent, Actors: ids.OrderBy(_ => random.Next()).Take(random.Next(1, Math.Min(4, actors) + 1)).ToArray()))
            .ToArray();
        var history = new ConcurrentBag<HistoryEntry>();

        await Parallel.ForEachAsync(plans, new ParallelOptions { MaxDegreeOfParallelism = 32 }, async (plan, _) =>
            history.Add(await HybridConsistencyTests.Run(silo.Client, plan.Pact, plan.Actors, ActOptions.EarlyRelease)));

        var result = ListAppendChecker.Check([.. history], await HybridConsistencyTests.ReadAll(silo.Client, ids));
        Assert.True(result.Ok, CheckReport.Render(result));
        Assert.Contains(history, h => h.Mode == "act" && h.Status == TransactionStatus.Committed);
        Assert.DoesNotContain(history, h => h.Mode == "pact" && h.Status == TransactionStatus.Aborted);
    }

    [Fact]
    public async Task When_the_head_of_a_dependency_chain_aborts_the_whole_chain_aborts_and_leaves_nothing()
    {
        var storage = new ScriptedLogStorage();
        var t1Prepare = storage.Hold(r => r is PrepareRecord);
        await using var silo = await TestSilo.StartAsync(
            s => s.Configure(o => (o.EarlyLockRelease, o.Promote) = (true, false)), // the cascade itself is the subject: not promoted
            services => services.AddSingleton<ILogStorage>(storage));
        var x = Actor("x");
        var engine = silo.Engine<Counter>(x);

        // T1 prepares on x and releases its lock; its Prepare record is held back.
        var t1 = silo.Client.RunAct<ITestActor>(x, (a, ctx) => a.Add(ctx, 1));
        await Poll.Until(() => engine.ActiveVersionCount == 1, "T1 exposes its prepared state");

        // T2 builds on T1's state, T3 on T2's: a chain T1 → T2 → T3 of commit dependencies.
        var t2 = silo.Client.RunAct<ITestActor>(x, (a, ctx) => a.Add(ctx, 10));
        await Poll.Until(() => engine.ActiveVersionCount == 2, "T2 exposes its prepared state");
        var t3 = silo.Client.RunAct<ITestActor, int>(x, (a, ctx) => a.AddThenRead(ctx, 100));
        await Poll.Until(() => engine.ActiveVersionCount == 3, "T3 exposes its prepared state");
        Assert.False(t3.IsCompleted, "T3 committed before the ACTs it depends on");

        t1Prepare.Fail(); // T1's prepare never becomes durable: T1 aborts
        Assert.Equal(AbortReason.Failure, (await Assert.ThrowsAsync<TransactionAbortedException>(() => t1)).Reason);
        Assert.Equal(AbortReason.Cascading, (await Assert.ThrowsAsync<TransactionAbortedException>(() => t2)).Reason);
        Assert.Equal(AbortReason.Cascading, (await Assert.ThrowsAsync<TransactionAbortedException>(() => t3)).Reason);

        Assert.Equal(0, await silo.Client.RunAct<ITestActor, int>(x, (a, ctx) => a.Read(ctx)));
        Assert.Equal(0, engine.ActiveVersionCount);
        silo.AssertQuiescent<Counter>(x);
    }

    [Fact]
    public async Task An_ACT_that_read_a_committed_writers_state_commits_without_waiting_and_a_chain_commits_in_order()
    {
        await using var silo = await TestSilo.StartAsync(s => s.Configure(o =>
        {
            o.EarlyLockRelease = true;
            o.LogWriteDelay = TimeSpan.FromMilliseconds(20);
        }));
        var x = Actor("x");

        // A chain of ELR writers on one actor, each started once the previous one released its
        // lock: each builds on the prepared state before it, and all commit.
        var engine = silo.Engine<Counter>(x);
        var writers = new List<Task>();
        var longest = 0;
        for (var i = 0; i < 5; i++)
        {
            var before = engine.ActiveVersionCount;
            var writer = silo.Client.RunAct<ITestActor>(x, (a, ctx) => a.Add(ctx, 1));
            writers.Add(writer);
            await Poll.Until(() => engine.ActiveVersionCount > before || writer.IsCompleted, "the writer prepared");
            longest = Math.Max(longest, engine.ActiveVersionCount);
        }

        await Task.WhenAll(writers);
        Assert.True(longest >= 2, $"the writers never formed a dependency chain (longest {longest})");
        Assert.Equal(5, await silo.Client.RunAct<ITestActor, int>(x, (a, ctx) => a.Read(ctx)));
        silo.AssertQuiescent<Counter>(x);

        // A dependency on an ACT that has already ended committed does not wait: its root still
        // answers for it (the ACT released locks early, so it may have dependents), by message.
        var ended = await silo.Client.RunAct<ITestActor, TxnContext>(x, (a, ctx) => a.Leak(ctx), ActOptions.EarlyRelease);
        var root = silo.Resolver.Participant(x);
        Task<bool> Outcome(ActDependency dependency, bool durable) => silo.Resolver.Participant(dependency.Root).ActOutcome(dependency.Tid, durable);
        Assert.True(await root.ActOutcome(ended.Tid, durable: true).WaitAsync(TimeSpan.FromSeconds(5)));
        var info = new ExecutionInfo();
        info.Merge(new ExecutionInfo().Snapshot(x, ParticipantRole.Reader, default, true, 0, 0, new ActDependency(ended.Tid, x)));
        await CommitDependency.WaitDurable(2, info, Outcome, DateTimeOffset.MaxValue, TimeProvider.System).AsTask().WaitAsync(TimeSpan.FromSeconds(5));
        await CommitDependency.WaitOrdered(2, info, Outcome, DateTimeOffset.MaxValue, TimeProvider.System).AsTask().WaitAsync(TimeSpan.FromSeconds(5));

        // One the root has no record of is presumed aborted, as recovery presumes.
        var unknown = new ExecutionInfo();
        unknown.Merge(new ExecutionInfo().Snapshot(x, ParticipantRole.Reader, default, true, 0, 0, new ActDependency(999_999, x)));
        var presumed = await Assert.ThrowsAsync<TransactionAbortedException>(async () => await CommitDependency.WaitDurable(2, unknown, Outcome, null, TimeProvider.System));
        Assert.Equal(AbortReason.Cascading, presumed.Reason);
    }

    [Fact]
    public async Task A_crash_in_the_middle_of_dependency_chains_recovers_to_a_state_the_checker_accepts()
    {
        var storage = new CrashImageStorage();
        var ids = Enumerable.Range(0, 8).Select(i => ActorId.Create<IListActor>(i)).ToArray();
        var history = new ConcurrentBag<HistoryEntry>();
        InMemoryLogStorage image;
        await using (var silo = await TestSilo.StartAsync(
            s => s.Configure(o =>
            {
                o.EarlyLockRelease = true;
                o.LogWriteDelay = TimeSpan.FromMilliseconds(2);
            }),
            services => services.AddSingleton<ILogStorage>(storage)))
        {
            // Load until the crash; whatever finished before it was acknowledged, the rest is unknown.
            var crashed = 0;
            var random = new Random(5);
            var plans = Enumerable.Range(0, Transactions * 2)
                .Select(_ => (Pact: random.Next(100) < 30, Actors: ids.OrderBy(_ => random.Next()).Take(random.Next(1, 4)).ToArray()))
                .ToArray();
            var load = Parallel.ForEachAsync(plans, new ParallelOptions { MaxDegreeOfParallelism = 32 }, async (plan, _) =>
            {
                var entry = await HybridConsistencyTests.Run(silo.Client, plan.Pact, plan.Actors, ActOptions.EarlyRelease);
                var acknowledgedBeforeCrash = Volatile.Read(ref crashed) == 0;
                history.Add(acknowledgedBeforeCrash || entry.Status == TransactionStatus.Aborted
                    ? entry
                    : entry with { Status = TransactionStatus.Unknown, Appends = [] });
            });

            await Poll.Until(() => history.Count >= Transactions / 2, "half the load has run");
            Volatile.Write(ref crashed, 1); // before the image: an acknowledgement seen before this is in it
            image = await storage.ImageAsync();
            await load;
        }

        await using var recovered = await TestSilo.StartAsync(configure: null, services => services.AddSingleton<ILogStorage>(image));
        var result = ListAppendChecker.Check([.. history], await HybridConsistencyTests.ReadAll(recovered.Client, ids));
        Assert.True(result.Ok, CheckReport.Render(result));
        Assert.Contains(history, h => h.Status == TransactionStatus.Committed);
        Assert.Contains(history, h => h.Status == TransactionStatus.Unknown);
    }
}

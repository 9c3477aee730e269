using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging;
using Orleans.Configuration;
using Orleans.Core.Internal;
using Snapper.Logging;
using Snapper.Protocol;
using Snapper.Tests.Infrastructure;

namespace Snapper.Tests.Regression;

/// <summary>
/// The living-cluster defects (issue 34): an activation that goes between two messages of a
/// transaction, or an answer that comes too late, must never turn into a lost write, a write skew,
/// or a commit the caller is told was an abort.
/// </summary>
public sealed class LivingClusterRegressionTests
{
    private static readonly TimeSpan ResponseTimeout = TimeSpan.FromSeconds(2);

    /// <summary>
    /// Defect 1: the only writer is still logging its one-phase Commit record when the root's call
    /// times out. The writer goes on and commits; the caller must not be told "aborted".
    /// </summary>
    [Fact]
    public async Task A_one_phase_commit_whose_answer_comes_too_late_is_in_doubt_not_aborted()
    {
        var storage = new ScriptedLogStorage();
        await using var silo = await TestSilo.StartAsync(
            s => s.Configure(o => o.TransactionTimeout = TimeSpan.FromSeconds(10)),
            services =>
            {
                services.AddSingleton<ILogStorage>(storage);
                services.Configure<SiloMessagingOptions>(o => o.ResponseTimeout = ResponseTimeout);
            });
        var (root, writer) = (ActorId.Create<ITestActor>("root"), ActorId.Create<ITestActor>("writer"));
        var commit = storage.Hold(r => r is CommitRecord c && c.Actor == writer);

        var txn = silo.Client.RunAct<ITestActor, int>(root, (a, ctx) => a.ReadThenAdd(ctx, writer, 5));
        await commit.Arrived;
        await Task.Delay(ResponseTimeout + ResponseTimeout); // the root's call to the writer times out meanwhile
        commit.Release();

        var outcome = await Record.ExceptionAsync(() => txn);
        Assert.False(outcome is TransactionAbortedException, $"a commit was reported as an abort: {outcome}");
        Assert.True(outcome is null or TransactionInDoubtException, $"unexpected outcome: {outcome}");
        Assert.Equal(5, await Read(silo, writer));
    }

    /// <summary>
    /// The root's first Commit to a participant timed out (its answer was held), so the root sent
    /// it again, and the first was applied before the second came. The second is no news: no
    /// "write was lost" error for a write that is there. Also when the writer's activation went
    /// between the two (<paramref name="nextActivation"/>): the hand-over tells the next one the ACT
    /// committed. Seen under `nested --nemesis deactivate`: "Actor 38 was told ACT 199065
    /// committed, but it holds no write prepared for it", with 199065's append on actor 38's list.
    /// </summary>
    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task A_Commit_that_comes_again_after_it_was_applied_is_no_news_not_a_lost_write(bool nextActivation)
    {
        var errors = new ErrorEvents();
        await using var silo = await TestSilo.StartAsync(services: services => services.AddSingleton<ILoggerProvider>(errors));
        var (root, writer) = (ActorId.Create<ITestActor>("again-root"), ActorId.Create<ITestActor>("again-writer"));
        var tid = await silo.Client.RunAct<ITestActor, long>(root, async (a, ctx) =>
        {
            await a.AddThenCall(ctx, 1, writer, 2);
            return ctx.Tid;
        });
        if (nextActivation)
        {
            await Deactivate(silo, writer);
        }

        await silo.Resolver.Participant(writer).Commit(tid, HybridDecision.None);

        Assert.Equal(2, await Read(silo, writer));
        Assert.Empty(errors.Events);
    }

    /// <summary>
    /// Defect 2: T1 reads b, b is deactivated (its read lock goes with it), T2 reads a and writes b,
    /// then T1 writes a. T1 must abort: its read of b no longer holds, and no serial order gives
    /// a = b + 100 and b = a + 1 together.
    /// </summary>
    [Fact]
    public async Task A_read_whose_lock_went_with_a_deactivated_actor_aborts_its_transaction()
    {
        await using var silo = await TestSilo.StartAsync(s => s.Configure(o => o.TransactionTimeout = TimeSpan.FromSeconds(10)));
        var (a, b) = (ActorId.Create<ITestActor>("a"), ActorId.Create<ITestActor>("b"));

        var t1 = silo.Client.RunAct<ITestActor>(a, (actor, ctx) => actor.CopyPlus(ctx, b, 100, "t1-read", "t1-write"));
        await silo.Gates.Until("t1-read");
        await Deactivate(silo, b);

        await silo.Client.RunAct<ITestActor>(b, (actor, ctx) => actor.CopyPlus(ctx, a, 1, null, null));
        silo.Gates.Signal("t1-write");
        var outcome = await Record.ExceptionAsync(() => t1);

        var (va, vb) = (await Read(silo, a), await Read(silo, b));
        Assert.True((va, vb) is (0, 1) or (100, 101) or (101, 1), $"a = {va}, b = {vb}: no serial order of T1 and T2 gives that (T1: {outcome?.Message ?? "committed"})");
        Assert.IsType<TransactionAbortedException>(outcome);
    }

    /// <summary>
    /// An ACT writes c, c is deactivated (the write goes with it), and the ACT calls c again, which
    /// its next activation takes. The ACT must not commit with the second write alone: committed,
    /// c holds both; else neither.
    /// </summary>
    [Fact]
    public async Task A_write_that_went_with_its_activation_is_not_committed_without_it()
    {
        await using var silo = await TestSilo.StartAsync(s => s.Configure(o => o.TransactionTimeout = TimeSpan.FromSeconds(10)));
        var (a, c) = (ActorId.Create<ITestActor>("twice-root"), ActorId.Create<ITestActor>("twice-c"));

        var txn = silo.Client.RunAct<ITestActor>(a, (actor, ctx) => actor.AddOnTwiceBetweenGates(ctx, c, "twice-between", "twice-release"));
        await silo.Gates.Until("twice-between");
        await Deactivate(silo, c);
        silo.Gates.Signal("twice-release");
        var outcome = await Record.ExceptionAsync(() => txn);

        var value = await Read(silo, c);
        Assert.True(outcome is null ? value == 2 : value == 0, $"c = {value}, and the ACT {outcome?.Message ?? "committed"}");
        Assert.IsType<TransactionAbortedException>(outcome);
    }

    /// <summary>
    /// Defect 3: both writers voted yes, then one is deactivated while the root logs CoordCommit.
    /// The caller is told "committed", so the write must be there, live and after a restart.
    /// </summary>
    [Fact]
    public async Task A_prepared_write_outlives_the_deactivation_of_its_actor()
    {
        var storage = new ScriptedLogStorage();
        await using var silo = await TestSilo.StartAsync(
            s => s.Configure(o => o.TransactionTimeout = TimeSpan.FromSeconds(10)),
            services => services.AddSingleton<ILogStorage>(storage));
        var (root, x) = (ActorId.Create<ITestActor>("root"), ActorId.Create<ITestActor>("x"));
        var decision = storage.Hold(r => r is CoordCommitRecord);

        var txn = silo.Client.RunAct<ITestActor>(root, (a, ctx) => a.AddThenCall(ctx, 1, x, 7));
        await decision.Arrived;
        await Deactivate(silo, x);
        decision.Release();
        await txn; // committed

        Assert.Equal(7, await Read(silo, x));
        await silo.Client.RunAct<ITestActor>(x, (a, ctx) => a.Add(ctx, 100));
        Assert.Equal(107, await Read(silo, x));

        var image = await storage.ImageAsync();
        await using var restarted = await TestSilo.StartAsync(services: services => services.AddSingleton<ILogStorage>(image));
        Assert.Equal(107, await Read(restarted, x));
        Assert.Equal(1, await Read(restarted, root));
    }

    /// <summary>
    /// The root's own vote and commit are not messages to itself: a root whose activation is asked
    /// to go while it decides (the activation then takes no message until its running calls end)
    /// still commits at once instead of waiting for its own Prepare until the response timeout.
    /// </summary>
    [Fact]
    public async Task A_root_asked_to_deactivate_while_it_decides_commits_without_waiting_for_itself()
    {
        var storage = new ScriptedLogStorage();
        await using var silo = await TestSilo.StartAsync(
            s => s.Configure(o => o.TransactionTimeout = TimeSpan.FromSeconds(30)),
            services =>
            {
                services.AddSingleton<ILogStorage>(storage);
                services.Configure<SiloMessagingOptions>(o => o.ResponseTimeout = TimeSpan.FromSeconds(20));
            });
        var (root, x) = (ActorId.Create<ITestActor>("root"), ActorId.Create<ITestActor>("x"));
        var decision = storage.Hold(r => r is CoordPrepareRecord);

        var txn = silo.Client.RunAct<ITestActor>(root, (a, ctx) => a.AddThenCall(ctx, 1, x, 7));
        await decision.Arrived;
        _ = silo.Grains.GetGrain<ITestActor>("root").AsReference<IGrainManagementExtension>().DeactivateOnIdle().AsTask();
        await Task.Delay(200); // the request reaches the root, which is still deciding
        decision.Release();

        await txn.WaitAsync(TimeSpan.FromSeconds(10)); // well before the response timeout
        Assert.Equal(1, await Read(silo, root));
        Assert.Equal(7, await Read(silo, x));
    }

    /// <summary>
    /// The PACT flavour of defect 3: x completed its part of a batch (BatchComplete sent) and is
    /// deactivated before the batch commits. The batch commits, so x's write must be there.
    /// </summary>
    [Fact]
    public async Task A_batch_write_outlives_the_deactivation_of_its_actor_before_the_batch_commits()
    {
        await using var silo = await TestSilo.StartAsync(s => s.Configure(o => o.TransactionTimeout = TimeSpan.FromSeconds(10)));
        var (root, x) = (ActorId.Create<ITestActor>("root"), ActorId.Create<ITestActor>("x"));

        var txn = silo.Client.RunPact<ITestActor>(root, (a, ctx) => a.CallThenWait(ctx, x, "called", "release", false), AccessSet.Of(root).And(x));
        await silo.Gates.Until("called");
        await Deactivate(silo, x);
        silo.Gates.Signal("release");
        await txn; // committed

        Assert.Equal(1, await Read(silo, x));
        await silo.Client.RunPact<ITestActor>(x, (a, ctx) => a.Add(ctx, 10), AccessSet.Of(x));
        Assert.Equal(11, await Read(silo, x));
    }

    /// <summary>
    /// Found by scripts/failover.sh: on a cluster client, finding a PACT's coordinator asks the ring
    /// membership, and when its silo was the one killed, that call failed outside the placement's
    /// retries. A promoted run then told its caller "in doubt" with tid 0, about a transaction that
    /// had not started (the history got entries it cannot tell apart), and RunPact, as RunAct when
    /// its tids ran out, let Orleans' exception through.
    /// </summary>
    [Fact]
    public async Task A_coordinator_that_cannot_be_found_for_a_while_is_looked_for_again_and_at_worst_the_transaction_aborts_never_in_doubt()
    {
        var ring = new UnreachableRing();
        await using var silo = await TestSilo.StartAsync(s => s.Configure(o => o.ActTidRangeSize = 2), client: c =>
        {
            c.Services.AddSingleton<Snapper.Coordination.ClientCoordinators>();
            c.Services.AddSingleton<Snapper.Coordination.ICoordinatorDirectory>(sp => ring.Around(sp.GetRequiredService<Snapper.Coordination.ClientCoordinators>()));
        });
        var (a, b) = (ActorId.Create<ITestActor>("ring-a"), ActorId.Create<ITestActor>("ring-b"));

        // Once: found on the next look.
        ring.FailNext(1);
        await silo.Client.RunPact<ITestActor>(a, (x, ctx) => x.Add(ctx, 1), AccessSet.Of(a));
        Snapper.Tests.Act.PromotionSites.AsUnderSkew(silo, (Func<ITestActor, TxnContext, Task<int>>)PayB);
        ring.FailNext(1);
        Assert.Equal(1, await silo.Client.RunAct<ITestActor, int>(a, PayB));

        // For good: an abort that says why, from RunPact and from an ACT that starts promoted.
        ring.FailNext(int.MaxValue);
        var pact = await Assert.ThrowsAsync<TransactionAbortedException>(() => silo.Client.RunPact<ITestActor>(a, (x, ctx) => x.Add(ctx, 1), AccessSet.Of(a)));
        var act = await Assert.ThrowsAsync<TransactionAbortedException>(() => silo.Client.RunAct<ITestActor, int>(a, PayB));
        Assert.Equal((AbortReason.Failure, AbortReason.Failure), (pact.Reason, act.Reason));
        Assert.Contains("no coordinator could take the PACT", act.Message, StringComparison.Ordinal);

        ring.FailNext(0);
        Assert.Equal((1, 1), (await Read(silo, a), await Read(silo, b)));

        // An ACT's tids come in ranges (of 2 here) from a coordinator found the same way: a fetch
        // that fails is tried again, and an ACT left without a tid aborts, having not started.
        ring.FailNextTids(1);
        for (var i = 0; i < 4; i++)
        {
            Assert.Equal(1, await Read(silo, a));
        }

        ring.FailNextTids(int.MaxValue);
        var tidless = await Assert.ThrowsAsync<TransactionAbortedException>(async () =>
        {
            for (var i = 0; i < 4; i++)
            {
                await Read(silo, a); // the range left, then none
            }
        });
        Assert.Equal(AbortReason.Failure, tidless.Reason);
        Assert.Contains("no coordinator could give the ACT a tid", tidless.Message, StringComparison.Ordinal);

        // a gives b one: it declares both in its call (NamedActors), so a promoted run commits at once.
        static Task<int> PayB(ITestActor x, TxnContext ctx) => x.ReadThenAdd(ctx, ActorId.Create<ITestActor>("ring-b"), 1);
    }

    private static async Task Deactivate(TestSilo silo, ActorId actor)
    {
        await silo.Grains.GetGrain<ITestActor>(actor.Key).AsReference<IGrainManagementExtension>().DeactivateOnIdle();
        await Poll.Until(() => silo.SiloOf(actor) is null, $"{actor} is deactivated");
    }

    private static Task<int> Read(TestSilo silo, ActorId id) => silo.Client.RunAct<ITestActor, int>(id, (actor, ctx) => actor.Read(ctx));

    // A client's coordinator directory whose ring membership cannot be reached for the next calls.
    private sealed class UnreachableRing
    {
        private int failures;
        private int tidFailures;

        public void FailNext(int calls) => Volatile.Write(ref failures, calls);

        public void FailNextTids(int calls) => Volatile.Write(ref tidFailures, calls);

        public Snapper.Coordination.ICoordinatorDirectory Around(Snapper.Coordination.ICoordinatorDirectory inner) => new Directory(this, inner);

        private sealed class Directory(UnreachableRing ring, Snapper.Coordination.ICoordinatorDirectory inner) : Snapper.Coordination.ICoordinatorDirectory
        {
            public ValueTask<(string Key, Snapper.Coordination.ICoordinator Coordinator)> ForPact(ActorId root) =>
                Interlocked.Decrement(ref ring.failures) >= 0
                    ? throw new SiloUnavailableException("the ring membership's silo has left the cluster")
                    : inner.ForPact(root);

            public ValueTask<Snapper.Coordination.ICoordinator> ForTids() =>
                Interlocked.Decrement(ref ring.tidFailures) >= 0
                    ? throw new SiloUnavailableException("the ring membership's silo has left the cluster")
                    : inner.ForTids();

            public void Refresh() => inner.Refresh();
        }
    }

    // The silo's error records, by event id and message.
    private sealed class ErrorEvents : ILoggerProvider
    {
        public System.Collections.Concurrent.ConcurrentQueue<string> Events { get; } = new();

        public ILogger CreateLogger(string categoryName) => new Sink(this);

        public void Dispose()
        {
        }

        private sealed class Sink(ErrorEvents owner) : ILogger
        {
            public IDisposable? BeginScope<TState>(TState state)
                where TState : notnull => null;

            public bool IsEnabled(LogLevel logLevel) => logLevel >= LogLevel.Error;

            public void Log<TState>(LogLevel logLevel, EventId eventId, TState state, Exception? exception, Func<TState, Exception?, string> formatter)
            {
                if (IsEnabled(logLevel))
                {
                    owner.Events.Enqueue($"{eventId.Id}: {formatter(state, exception)}");
                }
            }
        }
    }
}

using Microsoft.Extensions.DependencyInjection;
using Snapper.Logging;
using Snapper.Tests.Infrastructure;

namespace Snapper.Tests.Regression;

/// <summary>
/// Defect 2: a BatchCommit write that failed while an abort cascade ran left its batch unresolved
/// and the ring stopped for good. Defect 3: a PACT whose body let an abort exception with reason
/// Cascading escape committed its writes and returned normally.
/// </summary>
public sealed class PactRegressionTests
{
    private static readonly TimeSpan Bound = TimeSpan.FromSeconds(10);

    [Fact]
    public async Task A_BatchCommit_write_failing_during_a_cascade_resolves_every_PACT_and_the_ring_forms_batches_again()
    {
        // Two coordinators on two different loggers, and q (on coordinator 1) on neither of them
        // being held, so holding coordinator 0's BatchCommit holds nothing of batch 2.
        const int coordinators = 2;
        var (loggers, p, q) = RingPlacement.TwoCoordinatorsOnTwoLoggers();
        var storage = new ScriptedLogStorage();
        await using var silo = await TestSilo.StartAsync(
            s => s.Configure(o =>
            {
                o.CoordinatorCount = coordinators;
                o.LoggerCount = loggers;
            }),
            services => services.AddSingleton<ILogStorage>(storage));

        // Batch 1 (p) completes; its BatchCommit is being logged and held.
        var commit = storage.Hold(r => r is BatchCommitRecord);
        var first = silo.Client.RunPact<ITestActor>(p, (a, ctx) => a.Add(ctx, 1), AccessSet.Of(p));
        await commit.Arrived;

        // Batch 2 (q) cannot log the state it left: the whole batch fails, and the cascade it
        // starts waits for batch 1's commit to finish. (A PACT that throws would abort alone.)
        var state = storage.Hold(r => r is BatchCompleteRecord complete && complete.Actor == q);
        var second = silo.Client.RunPact<ITestActor>(q, (a, ctx) => a.Add(ctx, 1), AccessSet.Of(q));
        await state.Arrived;
        state.Fail();
        await Poll.Until(async () => (await silo.Ring()).Cascading, "the abort cascade has started");

        // The BatchCommit write fails: batch 1 is not committed after all, and the cascade takes it.
        commit.Fail();
        var firstAbort = await Assert.ThrowsAsync<TransactionAbortedException>(() => first.WaitAsync(Bound));
        var secondAbort = await Assert.ThrowsAsync<TransactionAbortedException>(() => second.WaitAsync(Bound));
        Assert.Equal(AbortReason.Failure, firstAbort.Reason);
        Assert.Contains("BatchCommit", firstAbort.Message);
        Assert.Equal(AbortReason.Failure, secondAbort.Reason);

        // Batch 2 failed on its own write: the state q left, or batch 2's BatchInfo when the
        // coordinator's logger put it in the same failed group, or, when q's coordinator writes q's
        // log, the BatchCommit queued with or behind q's record (which one is a matter of timing).
        Assert.Matches("could not log (the state|BatchInfo of batch|BatchCommit of batch)", secondAbort.Message);

        // The ring forms batches again, on the rolled-back state.
        await silo.Client.RunPact<ITestActor>(p, (a, ctx) => a.AddThenCall(ctx, 10, q, 10), AccessSet.Of(p).And(q)).WaitAsync(Bound);
        Assert.Equal(10, await silo.Client.RunAct<ITestActor, int>(p, (a, ctx) => a.Read(ctx)));
        Assert.Equal(10, await silo.Client.RunAct<ITestActor, int>(q, (a, ctx) => a.Read(ctx)));
        await silo.UntilResolved();
    }

    [Theory]
    [InlineData(AbortReason.Cascading)]
    [InlineData(AbortReason.User)]
    [InlineData(AbortReason.WaitDie)]
    [InlineData(AbortReason.Failure)]
    public async Task An_abort_exception_of_any_reason_leaving_a_PACT_body_aborts_it_and_reaches_the_caller(AbortReason reason)
    {
        await using var silo = await TestSilo.StartAsync();
        var p = ActorId.Create<ITestActor>("p");
        var q = ActorId.Create<ITestActor>("q");

        var direct = await Assert.ThrowsAsync<TransactionAbortedException>(
            () => silo.Client.RunPact<ITestActor>(p, (a, ctx) => a.AddThenAbort(ctx, 5, reason), AccessSet.Of(p)).WaitAsync(Bound));
        Assert.Equal(reason, direct.Reason);

        // The same thrown by a nested actor and let escape by the root.
        var nested = await Assert.ThrowsAsync<TransactionAbortedException>(
            () => silo.Client.RunPact<ITestActor>(p, (a, ctx) => a.AddThenCallAborting(ctx, 5, q, reason), AccessSet.Of(p).And(q)).WaitAsync(Bound));
        Assert.Equal(reason, nested.Reason);

        Assert.Equal(0, await silo.Client.RunAct<ITestActor, int>(p, (a, ctx) => a.Read(ctx)));
        Assert.Equal(0, await silo.Client.RunAct<ITestActor, int>(q, (a, ctx) => a.Read(ctx)));
    }
}

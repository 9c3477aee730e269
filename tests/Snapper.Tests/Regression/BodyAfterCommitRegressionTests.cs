using Snapper.Tests.Infrastructure;

namespace Snapper.Tests.Regression;

/// <summary>
/// Issue 49, defect 9: a body that threw a <see cref="TransactionAbortedException"/> of its own
/// after its call had committed was reported to the caller as aborted, and run again where the
/// reason was one RunPact or RunAct retries, committing its writes once more. A body's call to its
/// first actor answers only once the transaction committed: what the body throws after that is its
/// own, and comes wrapped in <see cref="BodyFailedAfterCommitException"/>.
/// </summary>
public sealed class BodyAfterCommitRegressionTests
{
    private static readonly TimeSpan Bound = TimeSpan.FromSeconds(15);

    [Fact]
    public async Task A_PACT_body_throwing_an_abort_of_its_own_after_its_call_committed_is_not_told_aborted_nor_run_again()
    {
        await using var silo = await TestSilo.StartAsync(s => s.Configure(o => o.MaxPactAttempts = 3));
        var p = ActorId.Create<ITestActor>("after-pact");
        var runs = 0;

        var thrown = await Assert.ThrowsAsync<BodyFailedAfterCommitException>(() => silo.Client.RunPact<ITestActor>(p, async (x, ctx) =>
        {
            Interlocked.Increment(ref runs);
            await x.Add(ctx, 1);
            throw new TransactionAbortedException(AbortReason.Cascading, "the body's own, after its call committed");
        }, AccessSet.Of(p)).WaitAsync(Bound));

        var own = Assert.IsType<TransactionAbortedException>(thrown.InnerException);
        Assert.Equal("the body's own, after its call committed", own.Detail);
        Assert.Equal(1, runs);
        Assert.True(thrown.Tid > 0);
        Assert.Equal(1, await silo.Client.RunAct<ITestActor, int>(p, (x, ctx) => x.Read(ctx)));

        // Nor is an exception the body throws after its call taken for a lost answer.
        var late = await Assert.ThrowsAsync<BodyFailedAfterCommitException>(() => silo.Client.RunPact<ITestActor>(p, async (x, ctx) =>
        {
            await x.Add(ctx, 1);
            throw new TimeoutException("the body's own timeout");
        }, AccessSet.Of(p)).WaitAsync(Bound));
        Assert.IsType<TimeoutException>(late.InnerException);
        Assert.Equal(2, await silo.Client.RunAct<ITestActor, int>(p, (x, ctx) => x.Read(ctx)));

        // A call that aborted is still the transaction's abort.
        var aborted = await Assert.ThrowsAsync<TransactionAbortedException>(
            () => silo.Client.RunPact<ITestActor>(p, (x, ctx) => x.AddThenAbort(ctx, 1, AbortReason.User), AccessSet.Of(p)).WaitAsync(Bound));
        Assert.Equal(AbortReason.User, aborted.Reason);
        Assert.Equal(2, await silo.Client.RunAct<ITestActor, int>(p, (x, ctx) => x.Read(ctx)));
        await silo.UntilResolved();
    }

    [Fact]
    public async Task An_ACT_body_throwing_an_abort_of_its_own_after_its_call_committed_is_not_told_aborted_nor_run_again()
    {
        await using var silo = await TestSilo.StartAsync();
        var a = ActorId.Create<ITestActor>("after-act");
        var runs = 0;

        var thrown = await Assert.ThrowsAsync<BodyFailedAfterCommitException>(() => silo.Client.RunAct<ITestActor, int>(a, async (x, ctx) =>
        {
            Interlocked.Increment(ref runs);
            await x.Add(ctx, 1);
            throw new TransactionAbortedException(AbortReason.WaitDie, "the body's own, after its call committed");
        }, new ActOptions { MaxAttempts = 3 }).WaitAsync(Bound));

        Assert.IsType<TransactionAbortedException>(thrown.InnerException);
        Assert.Equal(1, runs);
        Assert.Equal(1, await silo.Client.RunAct<ITestActor, int>(a, (x, ctx) => x.Read(ctx)));
    }
}

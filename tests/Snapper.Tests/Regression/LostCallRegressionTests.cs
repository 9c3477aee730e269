using Snapper.Tests.Infrastructure;

namespace Snapper.Tests.Regression;

/// <summary>
/// Issue 49, defect 4: every exception not Snapper's was a User abort, so a nested call lost to
/// Orleans' response timeout aborted with "User: user code threw TimeoutException". The callee here
/// never answers and its method has a short response timeout, so Orleans itself ends the call.
/// </summary>
public sealed class LostCallRegressionTests
{
    private static readonly TimeSpan Bound = TimeSpan.FromSeconds(15);

    [Fact]
    public async Task An_ACT_whose_nested_call_Orleans_times_out_aborts_with_Failure_while_a_callees_own_TimeoutException_stays_User()
    {
        await using var silo = await TestSilo.StartAsync();
        var (a, b) = (Actor("act-a"), Actor("act-b"));
        try
        {
            var lost = await Assert.ThrowsAsync<TransactionAbortedException>(
                () => silo.Client.RunAct<ILostCallTestActor>(a, (x, ctx) => x.CallHanging(ctx, b, "act release")).WaitAsync(Bound));
            Assert.Equal(AbortReason.Failure, lost.Reason);
            Assert.Contains("was lost", lost.Message);
            Assert.IsType<TimeoutException>(lost.InnerException?.InnerException);
        }
        finally
        {
            silo.Gates.Signal("act release");
        }

        var own = await Assert.ThrowsAsync<TransactionAbortedException>(
            () => silo.Client.RunAct<ILostCallTestActor>(a, (x, ctx) => x.CallThrowingTimeout(ctx, b)).WaitAsync(Bound));
        Assert.Equal(AbortReason.User, own.Reason);
    }

    [Fact]
    public async Task A_PACT_whose_nested_call_Orleans_times_out_aborts_with_Failure_while_its_bodys_own_TimeoutException_stays_User()
    {
        await using var silo = await TestSilo.StartAsync();
        var (a, b) = (Actor("pact-a"), Actor("pact-b"));
        try
        {
            var lost = await Assert.ThrowsAsync<TransactionAbortedException>(
                () => silo.Client.RunPact<ILostCallTestActor>(a, (x, ctx) => x.CallHanging(ctx, b, "pact release"), AccessSet.Of(a).And(b)).WaitAsync(Bound));
            Assert.Equal(AbortReason.Failure, lost.Reason);
            Assert.Contains("was lost", lost.Message);
        }
        finally
        {
            silo.Gates.Signal("pact release");
        }

        var own = await Assert.ThrowsAsync<TransactionAbortedException>(
            () => silo.Client.RunPact<ILostCallTestActor>(a, (x, ctx) => x.ThrowTimeout(ctx), AccessSet.Of(a)).WaitAsync(Bound));
        Assert.Equal(AbortReason.User, own.Reason);
        await silo.UntilResolved();
    }

    private static ActorId Actor(string key) => ActorId.Create<ILostCallTestActor>(key);
}

/// <summary>Calls that Orleans loses, and TimeoutExceptions of user code's own (LostCallRegressionTests).</summary>
public interface ILostCallTestActor : ITransactionalActor, IGrainWithStringKey
{
    /// <summary>Answers only at the gate, long after its caller's response timeout.</summary>
    [ResponseTimeout("00:00:01")]
    Task Hang(TxnContext ctx, string release);

    Task CallHanging(TxnContext ctx, ActorId target, string release);

    Task ThrowTimeout(TxnContext ctx);

    Task CallThrowingTimeout(TxnContext ctx, ActorId target);
}

public sealed class LostCallTestActor(Gates gates) : TransactionalActor<Counter>, ILostCallTestActor
{
    public async Task Hang(TxnContext ctx, string release)
    {
        (await GetState(ctx, AccessMode.ReadWrite)).Value++;
        await gates.Until(release);
    }

    public async Task CallHanging(TxnContext ctx, ActorId target, string release)
    {
        (await GetState(ctx, AccessMode.ReadWrite)).Value++;
        await CallActor<ILostCallTestActor>(ctx, target, x => x.Hang(ctx, release));
    }

    public Task ThrowTimeout(TxnContext ctx) => throw new TimeoutException("the user's own timeout");

    public Task CallThrowingTimeout(TxnContext ctx, ActorId target) =>
        CallActor<ILostCallTestActor>(ctx, target, x => x.ThrowTimeout(ctx));
}

using SmallBank;
using Snapper.Tests.Infrastructure;

namespace Snapper.Tests.Act;

/// <summary>A <see cref="TxnContext"/> is honoured only inside its own running transaction.</summary>
public sealed class ContextTests
{
    private static ActorId Actor(string key) => ActorId.Create<ITestActor>(key);

    [Fact]
    public async Task A_context_from_a_finished_transaction_is_rejected_by_GetState_with_a_clear_message()
    {
        await using var silo = await TestSilo.StartAsync();
        var account = ActorId.Create<IAccountActor>(1);
        var stale = await silo.Client.RunAct<ITestActor, TxnContext>(Actor("leaker"), (a, ctx) => a.Leak(ctx));

        var rejected = await Assert.ThrowsAsync<SnapperException>(() =>
            silo.Grains.GetGrain<IAccountActor>(1).DepositChecking(stale, 1m));

        Assert.Contains("has already finished", rejected.Message);
        Assert.Contains(stale.Tid.ToString(System.Globalization.CultureInfo.InvariantCulture), rejected.Message);
        Assert.Equal(2 * Account.InitialBalance, await silo.Client.RunAct<IAccountActor, decimal>(account, (a, ctx) => a.Balance(ctx)));
    }

    [Fact]
    public async Task A_context_from_a_finished_transaction_passed_to_CallActor_aborts_the_current_one()
    {
        await using var silo = await TestSilo.StartAsync();
        var stale = await silo.Client.RunAct<ITestActor, TxnContext>(Actor("leaker"), (a, ctx) => a.Leak(ctx));

        var aborted = await Assert.ThrowsAsync<TransactionAbortedException>(() =>
            silo.Client.RunAct<ITestActor>(Actor("caller"), (a, ctx) => a.CallWithContext(ctx, stale, Actor("target"))));

        Assert.Equal(AbortReason.Failure, aborted.Reason);
        Assert.Contains("has already finished", aborted.Message);
        Assert.IsType<SnapperException>(aborted.InnerException);
        Assert.Equal(0, await silo.Client.RunAct<ITestActor, int>(Actor("target"), (a, ctx) => a.Read(ctx)));
    }
}

using Snapper.Tests.Infrastructure;

namespace Snapper.Tests.Act;

/// <summary>
/// Calls still under way when the transaction's first method returns or throws: the root waits
/// for them and rolls back every actor they reached, so no lock or schedule slot is left behind.
/// </summary>
public sealed class StrayCallTests
{
    private static ActorId Actor(string key) => ActorId.Create<ITestActor>(key);

    [Fact]
    public async Task A_call_left_running_by_a_failure_is_waited_for_and_rolled_back()
    {
        await using var silo = await TestSilo.StartAsync();
        var (root, x, y) = (Actor("root"), Actor("x"), Actor("y"));
        silo.Gates.Signal("go");
        var txn = silo.Client.RunAct<ITestActor>(root, (a, ctx) => a.CallTwoFirstThrows(ctx, x, y));
        await silo.Gates.Until("second-locked");
        await Task.Delay(50);
        Assert.False(txn.IsCompleted, "the root decided while a call of the transaction still ran");

        silo.Gates.Signal("second-release");
        Assert.Equal(AbortReason.User, (await Assert.ThrowsAsync<TransactionAbortedException>(() => txn)).Reason);
        Assert.Equal(0, await silo.Client.RunAct<ITestActor, int>(y, (a, ctx) => a.Read(ctx)));
        silo.AssertQuiescent<Counter>(root, x, y);
    }

    [Fact]
    public async Task A_call_that_is_never_awaited_aborts_the_transaction_with_a_message_saying_so()
    {
        await using var silo = await TestSilo.StartAsync();
        var (root, x) = (Actor("root"), Actor("x"));
        silo.Gates.Signal("go");
        var txn = silo.Client.RunAct<ITestActor>(root, (a, ctx) => a.CallWithoutAwaiting(ctx, x));
        await silo.Gates.Until("stray-locked");

        // Released only once the method has surely returned with its call still running: released
        // at once, the call could end first on a loaded machine (CI saw it), and there would be no
        // stray call to report. Until released the root waits for it (bounded by the deadline).
        await Task.Delay(500);
        silo.Gates.Signal("stray-release");

        var aborted = await Assert.ThrowsAsync<TransactionAbortedException>(() => txn);
        Assert.Equal(AbortReason.Failure, aborted.Reason);
        Assert.Contains("await every CallActor", aborted.Message);
        Assert.Equal(0, await silo.Client.RunAct<ITestActor, int>(x, (a, ctx) => a.Read(ctx)));
        silo.AssertQuiescent<Counter>(root, x);
    }
}

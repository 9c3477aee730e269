using Microsoft.Extensions.DependencyInjection;
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

    /// <summary>
    /// A root's first call that reaches it past the deadline (a starved sender, twice in loaded CI
    /// runs) is not a context used outside its transaction: the caller is told it timed out, and
    /// nothing ran.
    /// </summary>
    [Fact]
    public async Task An_acts_first_call_that_reaches_its_root_past_the_deadline_aborts_as_a_timeout()
    {
        var late = new LateFirstCall("late-root", TimeSpan.FromSeconds(1.5));
        await using var silo = await TestSilo.StartAsync(
            s => s.Configure(o => (o.Promote, o.TransactionTimeout) = (false, TimeSpan.FromSeconds(1))),
            client: c => c.Services.AddSingleton<IOutgoingGrainCallFilter>(late));

        var aborted = await Assert.ThrowsAsync<TransactionAbortedException>(() =>
            silo.Client.RunAct<ITestActor>(Actor("late-root"), (a, ctx) => a.Add(ctx, 1)));

        Assert.True(late.Delayed, "no first call was delayed: the test tested nothing");
        Assert.Equal(AbortReason.Timeout, aborted.Reason);
        Assert.Contains("past the transaction's deadline", aborted.Message, StringComparison.Ordinal);
        Assert.Equal(0, await silo.Client.RunAct<ITestActor, int>(Actor("late-root"), (a, ctx) => a.Read(ctx)));
        silo.AssertQuiescent<Counter>(Actor("late-root"));
    }

    // Holds back the first start call to one actor, as a starved client would.
    private sealed class LateFirstCall(string key, TimeSpan delay) : IOutgoingGrainCallFilter
    {
        private int armed = 1;

        public bool Delayed { get; private set; }

        public async Task Invoke(IOutgoingGrainCallContext context)
        {
            if (context.TargetId.Key.ToString() == key && context.Request.GetArgumentCount() > 0 && context.Request.GetArgument(0) is TxnContext { Start: true } && Interlocked.Exchange(ref armed, 0) == 1)
            {
                Delayed = true;
                await Task.Delay(delay);
            }

            await context.Invoke();
        }
    }
}

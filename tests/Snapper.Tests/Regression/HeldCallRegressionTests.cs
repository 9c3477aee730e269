using Microsoft.Extensions.DependencyInjection;
using Orleans.Configuration;
using Orleans.Core.Internal;
using Snapper.Tests.Infrastructure;

namespace Snapper.Tests.Regression;

/// <summary>
/// Orleans holds a call to an activation that is going until the calls running there end, so a
/// wait can close a cycle that no detector sees: one of those calls waits, directly or through a
/// batch, for the transaction whose call is held.
/// </summary>
public sealed class HeldCallRegressionTests
{
    private static readonly TimeSpan ResponseTimeout = TimeSpan.FromSeconds(20);

    /// <summary>
    /// PACT P (root g) calls y, where its batch waits behind ACT T; g is asked to go, so T's call to
    /// g is held until P's call ends. T gives up its call (and aborts, or commits on a retry) well
    /// before the response timeout, and the batch goes on.
    /// </summary>
    [Fact]
    public async Task An_ACT_whose_call_is_held_by_a_going_actor_lets_the_batch_behind_it_go()
    {
        await using var silo = await StartSilo();
        var (g, y) = (ActorId.Create<ITestActor>("g"), ActorId.Create<ITestActor>("y"));
        await silo.Client.RunPact<ITestActor>(y, (a, ctx) => a.Add(ctx, 10), AccessSet.Of(y)); // batches run at y

        // T (root y) writes y and waits; P's batch is placed behind T at y.
        var t = silo.Client.RunAct<ITestActor>(y, (a, ctx) => a.AddWaitThenCall(ctx, "t-locked", "t-go", g));
        await silo.Gates.Until("t-locked");
        silo.Gates.Signal("p-go");
        var p = silo.Client.RunPact<ITestActor>(g, (a, ctx) => a.CallThenWait(ctx, y, "p-called", "p-go", false), AccessSet.Of(g).And(y));
        await Task.Delay(300);

        // g goes while P's call runs there; then T calls g, which holds the call.
        _ = silo.Grains.GetGrain<ITestActor>(g.Key).AsReference<IGrainManagementExtension>().DeactivateOnIdle().AsTask();
        await Task.Delay(300);
        silo.Gates.Signal("t-go");

        await p.WaitAsync(ResponseTimeout / 2); // committed, well before the response timeout
        var tOutcome = await Record.ExceptionAsync(() => t);
        Assert.True(tOutcome is null or TransactionAbortedException { Reason: AbortReason.Deadlock }, $"T: {tOutcome}");
        var tCommitted = tOutcome is null ? 1 : 0;
        Assert.Equal(10 + 1 + tCommitted, await Read(silo, y));
        Assert.Equal(tCommitted, await Read(silo, g));
    }

    /// <summary>
    /// T1 (root x) holds x's lock; x is asked to go; T2 (root z) holds z's lock and calls x, which
    /// holds the call; then T1 calls z, where it would wait for T2's lock. A call from a going
    /// actor is refused at once (T1 aborts), so x goes and T2 commits, instead of both waiting
    /// until T1's deadline.
    /// </summary>
    [Fact]
    public async Task An_ACT_starts_no_call_from_a_going_actor()
    {
        await using var silo = await StartSilo();
        var (x, z) = (ActorId.Create<ITestActor>("x"), ActorId.Create<ITestActor>("z"));

        var t1 = silo.Client.RunAct<ITestActor>(x, (a, ctx) => a.AddWaitThenCall(ctx, "t1-locked", "t1-go", z));
        await silo.Gates.Until("t1-locked");
        _ = silo.Grains.GetGrain<ITestActor>(x.Key).AsReference<IGrainManagementExtension>().DeactivateOnIdle().AsTask();
        await Task.Delay(300);

        var t2 = silo.Client.RunAct<ITestActor>(z, (a, ctx) => a.AddWaitThenCall(ctx, "t2-locked", "t2-go", x));
        await silo.Gates.Until("t2-locked");
        silo.Gates.Signal("t2-go"); // held at x
        await Task.Delay(300);
        silo.Gates.Signal("t1-go");

        await t2.WaitAsync(TimeSpan.FromSeconds(5)); // committed, well before T1's deadline
        var t1Outcome = await Record.ExceptionAsync(() => t1);
        Assert.True(t1Outcome is TransactionAbortedException { Reason: AbortReason.Failure }, $"T1: {t1Outcome}");
        Assert.Equal(1, await Read(silo, x));
        Assert.Equal(1, await Read(silo, z));
    }

    // Transactions time out well before Orleans' response timeout, so a wait that only the response
    // timeout would end shows as an abort or a test timeout.
    private static Task<TestSilo> StartSilo() => TestSilo.StartAsync(
        s => s.Configure(o => o.TransactionTimeout = TimeSpan.FromSeconds(10)),
        services => services.Configure<SiloMessagingOptions>(o => o.ResponseTimeout = ResponseTimeout));

    private static Task<int> Read(TestSilo silo, ActorId id) => silo.Client.RunAct<ITestActor, int>(id, (actor, ctx) => actor.Read(ctx));
}

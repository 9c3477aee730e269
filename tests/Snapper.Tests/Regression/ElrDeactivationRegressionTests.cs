using Microsoft.Extensions.DependencyInjection;
using Orleans.Configuration;
using Orleans.Core.Internal;
using Snapper.Logging;
using Snapper.Tests.Infrastructure;

namespace Snapper.Tests.Regression;

/// <summary>
/// Early lock release on a living cluster: an activation that is going takes no message until its
/// running calls end, so an ACT's outcome must not be something only its root's activation can
/// answer.
/// </summary>
public sealed class ElrDeactivationRegressionTests
{
    /// <summary>
    /// Two roots going at once, each running an ACT that waits for the outcome of an ACT rooted at
    /// the other: T1 (root a) read T2's prepared write on c, T2 (root b) read T3's (root a). Asked
    /// of the going activations, neither question is delivered until the other's call ends; the
    /// wait lasted until T2's deadline (and, past a logged CoordCommit, for ever). Answered by the
    /// roots' silo (the same silo, or each its own), both commit.
    /// </summary>
    [Theory]
    [InlineData(1)]
    [InlineData(2)]
    public async Task Two_going_roots_that_wait_for_each_others_outcomes_both_commit(int silos)
    {
        var storage = new ScriptedLogStorage();
        await using var silo = await TestSilo.StartAsync(
            s => s.Configure(o =>
            {
                o.EarlyLockRelease = true;
                o.TransactionTimeout = TimeSpan.FromSeconds(10);
            }),
            services =>
            {
                services.AddSingleton<ILogStorage>(storage);
                services.Configure<SiloMessagingOptions>(o => o.ResponseTimeout = TimeSpan.FromSeconds(30));
            },
            silos);
        var (a, b) = silos == 1 ? (ActorId.Create<ITestActor>("a"), ActorId.Create<ITestActor>("b")) : await silo.ActorsOnTwoSilos();
        var c = ActorId.Create<ITestActor>("c");

        // T3 (root a) writes a and c, releases both at Prepare, and is held before its commit is durable.
        var t3Durable = storage.Hold(r => r is CoordCommitRecord);
        var t3 = silo.Client.RunAct<ITestActor>(a, (actor, ctx) => actor.AddThenCall(ctx, 1, c, 1));
        await t3Durable.Arrived;

        // T1 (root a, the older) has a call on c that waits before it writes; T2 (root b) writes c
        // on T3's state and waits.
        silo.Gates.Signal("t1-release");
        var t1 = silo.Client.RunAct<ITestActor>(a, (actor, ctx) => actor.CallAddBetweenGates(ctx, c, "t1-go", "t1-written", "t1-release"));
        await silo.Gates.UntilAwaited("t1-go"); // on c before T2 (a loaded machine once let T2 take c first)
        var t2 = silo.Client.RunAct<ITestActor>(b, (actor, ctx) => actor.CallThenWait(ctx, c, "t2-in", "t2-go", false));
        await silo.Gates.Until("t2-in");

        // Both roots are asked to go while their ACTs run: from now on neither takes a message.
        // Once both go, their notices (StopWaiting) reach c: T1's lock wait there must begin after
        // it heard a go (one begun before is refused, by design), so the test waits for the
        // deactivations and then gives the notices two seconds (not a signal they send; half a
        // second was once too little on a starved CI runner, and T1's wait, begun first, was refused).
        await Task.WhenAll(Deactivate(silo, a), Deactivate(silo, b)).WaitAsync(TimeSpan.FromSeconds(10));
        await Task.Delay(TimeSpan.FromSeconds(2));

        silo.Gates.Signal("t1-go"); // T1 waits for T2's lock on c
        await Task.Delay(200);
        silo.Gates.Signal("t2-go"); // T2 prepares (c released to T1, which reads it) and asks about T3; T1 asks about T2
        await Task.Delay(300);
        t3Durable.Release();

        var outcomes = await Task.WhenAll(t1, t2, t3).WaitAsync(TimeSpan.FromSeconds(25)).ContinueWith(t => t.Exception?.InnerException);
        Assert.Null(outcomes);
        Assert.Equal(1, await Read(silo, a));
        Assert.Equal(3, await Read(silo, c));
    }

    private static Task Deactivate(TestSilo silo, ActorId actor) =>
        silo.Grains.GetGrain<ITestActor>(actor.Key).AsReference<IGrainManagementExtension>().DeactivateOnIdle().AsTask();

    private static Task<int> Read(TestSilo silo, ActorId id) => silo.Client.RunAct<ITestActor, int>(id, (actor, ctx) => actor.Read(ctx));
}

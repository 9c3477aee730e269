using Microsoft.Extensions.DependencyInjection;
using Orleans.Configuration;
using Orleans.Core.Internal;
using Snapper.Tests.Infrastructure;

namespace Snapper.Tests.Regression;

/// <summary>
/// A call tree comes back into an actor whose activation has begun to go (issue 50): a → b → a,
/// and a is asked to deactivate while its call waits for b. Orleans gives a going activation no
/// message until its running calls return, so b's call back into a can never be served there; it
/// must be refused at once (the transaction aborts everywhere) instead of both waiting for the
/// response timeout. The same when the tree comes back from a itself (a → a → a).
/// </summary>
public sealed class GoingActorCallBackTests
{
    // Far longer than the bound below: a call back that waits for it is what this test catches.
    private static readonly TimeSpan ResponseTimeout = TimeSpan.FromSeconds(60);
    private static readonly TimeSpan Bound = TimeSpan.FromSeconds(20);

    [Theory]
    [InlineData(false, false)]
    [InlineData(true, false)]
    [InlineData(false, true)]
    [InlineData(true, true)]
    public async Task A_call_back_into_an_actor_that_is_going_is_refused_and_its_transaction_aborts(bool pact, bool fromItself)
    {
        await using var silo = await Start();
        var (a, b) = (ActorId.Create<ITestActor>("going-a"), ActorId.Create<ITestActor>("going-b"));
        var next = fromItself ? a : b;
        var outcome = await RunWhileGoing(
            silo, pact, a, (x, ctx) => x.AddThenCallBackBetweenGates(ctx, next, "b-called", "b-calls-back"), AccessSet.Of(a, 2).And(next), "b-called", "b-calls-back");

        await AssertAbortedEverywhereThenServing(silo, outcome, a, b);
    }

    /// <summary>
    /// The actor begins to go while its call waits on no other actor (in user code), and only then
    /// makes the call whose tree comes back: the notice must go with that call.
    /// </summary>
    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task A_call_made_after_its_actor_began_to_go_cannot_come_back_into_it(bool pact)
    {
        await using var silo = await Start();
        var (a, b) = (ActorId.Create<ITestActor>("late-a"), ActorId.Create<ITestActor>("late-b"));
        var outcome = await RunWhileGoing(
            silo, pact, a, (x, ctx) => x.AddBetweenGatesThenCallBack(ctx, b, "a-added", "a-calls"), AccessSet.Of(a, 2).And(b), "a-added", "a-calls");

        Assert.IsType<TransactionAbortedException>(outcome);
        Assert.Equal((0, 0), (await Read(silo, a), await Read(silo, b)));
    }

    /// <summary>
    /// a → b → a, and both a and b begin to go while b's call waits in user code: each takes no
    /// message until its running call ends, so a's notice queues at b and b's call back queues at a.
    /// A going activation's calls give up once they have waited a bounded time (the transaction
    /// aborts), so both activations go and the actors serve again.
    /// </summary>
    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task A_tree_through_two_going_actors_ends_though_neither_takes_the_others_message(bool pact)
    {
        await using var silo = await Start();
        var (a, b) = (ActorId.Create<ITestActor>("both-a"), ActorId.Create<ITestActor>("both-b"));
        var outcome = await RunWhileGoing(
            silo, pact, a, (x, ctx) => x.AddThenCallBackBetweenGates(ctx, b, "b-called", "b-calls-back"), AccessSet.Of(a, 2).And(b), "b-called", "b-calls-back", alsoGoing: b);

        await AssertAbortedEverywhereThenServing(silo, outcome, a, b);
    }

    // The transaction aborted and wrote nothing on a or b; both serve the next one.
    private static async Task AssertAbortedEverywhereThenServing(TestSilo silo, Exception? outcome, ActorId a, ActorId b)
    {
        Assert.IsType<TransactionAbortedException>(outcome);
        Assert.Equal((0, 0), (await Read(silo, a), await Read(silo, b)));
        await silo.Client.RunAct<ITestActor>(a, (x, ctx) => x.AddThenCall(ctx, 1, b, 1));
        Assert.Equal((1, 1), (await Read(silo, a), await Read(silo, b)));
    }

    private static Task<TestSilo> Start() => TestSilo.StartAsync(
        s => s.Configure(o => o.TransactionTimeout = 2 * ResponseTimeout),
        services => services.Configure<SiloMessagingOptions>(o => o.ResponseTimeout = ResponseTimeout));

    // Runs body from a (as a PACT declaring declared, or an ACT), asks Orleans to deactivate a (and
    // alsoGoing) once the body signals reached, then lets it go on (release): how the transaction
    // ended, within Bound.
    private static async Task<Exception?> RunWhileGoing(TestSilo silo, bool pact, ActorId a, Func<ITestActor, TxnContext, Task> body, AccessSet declared, string reached, string release, ActorId? alsoGoing = null)
    {
        var txn = pact ? silo.Client.RunPact(a, body, declared) : silo.Client.RunAct(a, body);
        await silo.Gates.Until(reached);
        await silo.Grains.GetGrain<ITestActor>(a.Key).AsReference<IGrainManagementExtension>().DeactivateOnIdle();
        if (alsoGoing is { } other)
        {
            await silo.Grains.GetGrain<ITestActor>(other.Key).AsReference<IGrainManagementExtension>().DeactivateOnIdle();
        }

        silo.Gates.Signal(release);
        return await Record.ExceptionAsync(() => txn.WaitAsync(Bound));
    }

    private static Task<int> Read(TestSilo silo, ActorId id) => silo.Client.RunAct<ITestActor, int>(id, (actor, ctx) => actor.Read(ctx));
}

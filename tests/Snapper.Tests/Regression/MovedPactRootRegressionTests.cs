using Microsoft.Extensions.DependencyInjection;
using Snapper.Logging;
using Snapper.Tests.Infrastructure;

namespace Snapper.Tests.Regression;

/// <summary>
/// Found by <c>SiloFailureTests</c> (one run in 10 to 30 on 2 cores under load): a PACT reported
/// committed whose batch the failover had aborted. Its root's activation went while the batch was
/// undecided (the silo was dying), so the caller asked the root's next activation
/// (<c>AwaitPact</c>). That activation, on the surviving silo, had never held the batch: the
/// activation that did died without a hand-over. It answered "committed" as soon as any later batch
/// committed there, reading "batches commit in bid order" into a batch that was not in its chain.
/// </summary>
public sealed class MovedPactRootRegressionTests
{
    private static readonly TimeSpan Bound = TimeSpan.FromSeconds(10);

    [Fact]
    public async Task The_next_activation_of_a_moved_PACT_root_that_never_held_its_batch_asks_the_coordinator_how_it_ended()
    {
        var storage = new ScriptedLogStorage();
        await using var silo = await TestSilo.StartAsync(services: services => services.AddSingleton<ILogStorage>(storage));
        var p = ActorId.Create<ITestActor>("p");
        var r = ActorId.Create<ITestActor>("r");

        // Batch b aborts as a whole: the state p left cannot be logged.
        var state = storage.Hold(record => record is BatchCompleteRecord complete && complete.Actor == p);
        (long Tid, long Bid, string Coordinator) aborted = (0, 0, "");
        var pact = silo.Client.RunPact<ITestActor>(
            p,
            (a, ctx) =>
            {
                aborted = (ctx.Tid, ctx.Bid, ctx.Coordinator!);
                return a.Add(ctx, 1);
            },
            AccessSet.Of(p));
        await state.Arrived;
        state.Fail();
        await Assert.ThrowsAsync<TransactionAbortedException>(() => pact.WaitAsync(Bound));

        // r stands for the root's next activation after its silo died: asked about batch b, which it
        // never held, while later batches commit on it.
        var asked = silo.Resolver.Participant(r).AwaitPact(aborted.Tid, aborted.Bid, aborted.Coordinator);
        await silo.Client.RunPact<ITestActor>(r, (a, ctx) => a.Add(ctx, 1), AccessSet.Of(r)).WaitAsync(Bound);

        var answer = await asked.WaitAsync(Bound);
        Assert.NotNull(answer);
        Assert.Equal(aborted.Tid, answer.Tid);
    }
}

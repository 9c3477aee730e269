using Snapper.Tests.Infrastructure;
using Snapper.Protocol;

namespace Snapper.Tests.Pact;

/// <summary>One actor's PACT engine driven by hand, with messages in a chosen order.</summary>
public sealed class PactParticipantTests
{
    private const long First = 1_000_000; // far above anything the ring hands out in this silo
    private const long Second = 1_000_010;

    [Theory]
    [InlineData(Second, 5)] // the cascade starts after the first batch: it keeps it, and its late BatchCommit commits it
    [InlineData(First, 0)] // the cascade starts at the first batch: both are rolled back
    public async Task An_abort_cascade_rolls_back_from_its_batch_on_and_keeps_the_batches_before(long abortedFrom, int expected)
    {
        await using var silo = await TestSilo.StartAsync();
        var x = ActorId.Create<ITestActor>("late-commit");
        var participant = silo.Resolver.Participant(x);
        var actor = silo.Resolver.Get<ITestActor>(x);
        var coordinator = silo.CoordinatorKey(0);

        // Two batches ran here (their PACTs' calls, not the roots': nothing waits for the outcome),
        // neither has committed yet. Then a cascade from abortedFrom through the second batch.
        await participant.OnBatch(new SubBatch(First, 0, coordinator, [(First, 1)]));
        await AsPactCall(() => actor.Add(Ctx(First), 5));
        await participant.OnBatch(new SubBatch(Second, First, coordinator, [(Second, 1)]));
        await AsPactCall(() => actor.Add(Ctx(Second), 100));
        await participant.OnAbort(abortedFrom, Second, new Dictionary<long, Exception>(), AbortReason.Cascading);
        if (abortedFrom == Second)
        {
            silo.BatchCommits.Advance(coordinator, First); // as the coordinator's announcement would
        }

        await Poll.Until(() => !silo.Actor<Counter>(x).PactParticipant.HasUncommittedBatches, "no batch is left uncommitted");
        Assert.Equal(expected, silo.Engine<Counter>(x).Versions.Committed.Value);

        // The call as a PACT's CallActor makes it (a context outside CallActor is refused).
        static async Task AsPactCall(Func<Task> call)
        {
            Snapper.Grains.ExecutionInfoSink.Value = Snapper.Grains.ExecutionInfoSink.PactCall;
            try
            {
                await call();
            }
            finally
            {
                Snapper.Grains.ExecutionInfoSink.Value = null;
            }
        }

        TxnContext Ctx(long bid) => new(bid, TxnMode.Pact, x, DateTimeOffset.MaxValue, bid, AccessSet.Of(x)) { Coordinator = coordinator };
    }
}

using Snapper.Pact;
using Snapper.Tests.Infrastructure;

namespace Snapper.Tests.Pact;

/// <summary>One actor's PACT engine driven by hand, with messages in a chosen order.</summary>
public sealed class PactParticipantTests
{
    private const long Bid = 1_000_000; // far above anything the ring hands out in this silo

    [Theory]
    [InlineData(Bid, 5)] // the batch committed but its BatchCommit had not arrived: the cascade must keep it
    [InlineData(0, 0)] // the batch was not committed: the cascade rolls it back
    public async Task An_abort_cascade_keeps_a_committed_batch_whose_commit_message_is_late(long committedThrough, int expected)
    {
        await using var silo = await TestSilo.StartAsync();
        var x = ActorId.Create<ITestActor>("late-commit");
        var participant = silo.Runtime.Resolver.Participant(x);
        var actor = silo.Runtime.Resolver.Get<ITestActor>(x);
        var ctx = new TxnContext(Bid, TxnMode.Pact, x, DateTimeOffset.MaxValue, Bid, AccessSet.Of(x));

        // BatchMsg, the PACT's call (not the root's: nothing waits for the outcome), then the cascade.
        await participant.OnBatch(new SubBatch(Bid, 0, 0, [(Bid, 1)]));
        await actor.Add(ctx, 5);
        await participant.OnAbort(Bid, committedThrough, new Dictionary<long, Exception>());

        Assert.Equal(expected, silo.Engine<Counter>(x).Versions.Committed.Value);
        Assert.False(silo.Actor<Counter>(x).PactEngine.HasUncommittedBatches);
    }
}

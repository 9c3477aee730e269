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
        var activation = silo.Runtime.Directory.Get(x);
        var actor = (ITestActor)activation.Instance;
        var participant = (IPactParticipant)activation.Instance;
        var ctx = new TxnContext(Bid, TxnMode.Pact, x, DateTimeOffset.MaxValue, Bid, AccessSet.Of(x));

        await activation.Run(() => participant.OnBatch(new SubBatch(Bid, 0, 0, [(Bid, 1)])));
        await activation.Run(() => participant.InvokePact<ITestActor, bool>(ctx, async a =>
        {
            await a.Add(ctx, 5);
            return true;
        }));
        await activation.Run(() => participant.OnAbort(Bid, committedThrough, new Dictionary<long, Exception>()));

        Assert.Equal(expected, silo.Engine<Counter>(x).Versions.Committed.Value);
        Assert.False(((TransactionalActor<Counter>)actor).PactEngine.HasUncommittedBatches);
    }
}

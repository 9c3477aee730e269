using Snapper.LoadGen.Measurement;
using Snapper.Tests.Infrastructure;

namespace Snapper.Tests.LoadGen;

/// <summary>
/// Issue 54: LoadGen lists, per mode, the actors most often in the way of its aborts, from the
/// blocker each abort names, and counts the concurrency aborts that named none.
/// </summary>
public sealed class InTheWayTests
{
    private static readonly ActorId Hot = ActorId.Create<ITestActor>("hot");
    private static readonly ActorId Warm = ActorId.Create<ITestActor>("warm");

    private static TransactionAbortedException WaitDie(ActorId holderAt, long holder) =>
        new(AbortReason.WaitDie, "died") { Tid = 9, Blocker = new AbortBlocker(holderAt, BlockedOn.Lock, [holder], 0) };

    [Fact]
    public void The_actors_most_in_the_way_come_first_with_their_share_of_the_mode_s_aborted_attempts()
    {
        var blockers = new AbortBlockers();
        blockers.Record(WaitDie(Warm, 99)); // the mode before
        blockers.Reset();
        for (var i = 0; i < 6; i++)
        {
            blockers.Record(WaitDie(Hot, 1));
        }

        blockers.Record(WaitDie(Warm, 2));
        blockers.Record(WaitDie(Warm, 3));
        blockers.Record(new TransactionAbortedException(AbortReason.Cascading, "a batch") { Blocker = new AbortBlocker(default, BlockedOn.Batch, [], 40) });
        blockers.Record(new TransactionAbortedException(AbortReason.Deadlock, "no blocker named"));
        blockers.Record(new TransactionAbortedException(AbortReason.User, "user code threw"));
        blockers.Record(new TimeoutException("not a Snapper abort: not counted"));

        Assert.Equal(11, blockers.Aborts);
        var top = blockers.Top();
        Assert.Equal(
            [("ITestActor/hot", 6L), ("ITestActor/warm", 2L), (InTheWay.UnknownActor, 1L)],
            top.Select(w => (w.Actor, w.Aborts)));
        Assert.Equal(100.0 * 6 / 11, top[0].Percent, precision: 6);
        Assert.Equal(1, blockers.WithoutBlocker); // the Deadlock; a user abort has no blocker to name
        Assert.Equal("ITestActor/hot 54.5%", top[0].ToString());
    }

    [Fact]
    public void At_most_five_actors_are_listed()
    {
        var counts = Enumerable.Range(1, 8).ToDictionary(i => $"A/{i}", i => (long)i);
        var top = InTheWay.Top(counts, aborted: 36);
        Assert.Equal(["A/8", "A/7", "A/6", "A/5", "A/4"], top.Select(w => w.Actor));
    }
}

using Snapper.Grains;
using Snapper.Tests.Infrastructure;
using Snapper.Protocol;
using Snapper.Scheduling;

namespace Snapper.Tests.Regression;

/// <summary>
/// Issue 34, item 5 (PACT stalls under deactivation): once Orleans starts to deactivate an actor,
/// the activation takes no message until every call running in it has returned. A call that starts
/// to wait for its turn after the schedule bounced its waiters (it was released from the wait for
/// its batch just before, and resumed after) would wait for a PACT whose call can no longer get in,
/// and keep the activation from ever going: the actor, and every batch after it, stalled for good.
/// </summary>
/// <remarks>
/// Built on the schedule alone: in a silo the window is one scheduler turn wide (the batch's start
/// and the deactivation's signal queued in that order in the activation), which a test cannot
/// place. An exclusive scheduler stands in for the activation's: continuations wait for the turn.
/// </remarks>
public sealed class PactDeactivationRegressionTests
{
    private static readonly ActorId Me = ActorId.Create<ITestActor>("me");

    private static TxnContext Ctx(long tid, long bid) =>
        new(tid, TxnMode.Pact, Me, DateTimeOffset.MaxValue, bid, AccessSet.Of(Me));

    [Fact]
    public async Task A_call_released_for_its_batch_as_the_activation_goes_is_sent_again_instead_of_waiting_for_its_turn()
    {
        var turns = new ConcurrentExclusiveSchedulerPair().ExclusiveScheduler;
        var released = await Task.Factory.StartNew(
            () =>
            {
                var schedule = new LocalSchedule(Me);
                schedule.Add(new SubBatch(2, 0, "silo/0", [(2, 1)]));
                var early = schedule.Enter(Ctx(9, 8)).AsTask(); // tid 9 of batch 8 came before its batch
                schedule.Add(new SubBatch(8, 2, "silo/0", [(8, 1), (9, 1)]));

                schedule.Enter(Ctx(2, 2)).AsTask().Wait();
                schedule.Exit(Ctx(2, 2)); // batch 2 completes, batch 8 starts: tid 9's wait is over
                schedule.Bounce(new ActorMovingException(Me)); // in the same turn, before tid 9 resumes
                return early;
            },
            CancellationToken.None,
            TaskCreationOptions.None,
            turns);

        // Tid 8's call will never get into this activation: tid 9 must not wait for its turn here.
        await Assert.ThrowsAsync<ActorMovingException>(() => released.WaitAsync(TimeSpan.FromSeconds(5)));
    }

    [Fact]
    public void A_call_that_reaches_a_going_activation_before_its_turn_is_sent_again_at_once()
    {
        var schedule = new LocalSchedule(Me);
        schedule.Add(new SubBatch(8, 0, "silo/0", [(8, 1), (9, 1)]));
        schedule.Bounce(new ActorMovingException(Me));

        Assert.Throws<ActorMovingException>(() => schedule.Enter(Ctx(9, 8)));
        Assert.Throws<ActorMovingException>(() => schedule.Enter(Ctx(12, 11))); // its batch has not come
        Assert.True(schedule.Enter(Ctx(8, 8)).IsCompletedSuccessfully); // its turn: it runs, and the activation waits for it
    }
}

using Snapper.Tests.Infrastructure;
using Snapper.Protocol;
using Snapper.Scheduling;

namespace Snapper.Tests.Pact;

/// <summary>The local schedule on its own, with batches and calls delivered in a chosen order.</summary>
public sealed class LocalScheduleTests
{
    private static readonly ActorId Me = ActorId.Create<ITestActor>("me");

    private static TxnContext Ctx(long tid, long bid, int calls = 1) =>
        new(tid, TxnMode.Pact, Me, DateTimeOffset.MaxValue, bid, AccessSet.Of(Me, calls));

    private static SubBatch Batch(long bid, long prev, params (long Tid, int Calls)[] pacts) => new(bid, prev, "silo/0", [.. pacts]);

    private static async Task Call(LocalSchedule schedule, TxnContext ctx)
    {
        await schedule.Enter(ctx).AsTask().WaitAsync(TimeSpan.FromSeconds(5));
        schedule.Exit(ctx);
    }

    [Fact]
    public async Task A_batch_that_arrives_before_its_predecessor_waits_for_the_gap_to_fill()
    {
        var schedule = new LocalSchedule(Me);
        var completed = new List<long>();
        schedule.Attach(new PactSide(completed: b => completed.Add(b.Bid)));

        schedule.Add(Batch(8, prev: 2, (8, 1)));
        Assert.Null(schedule.Running);
        var early = schedule.Enter(Ctx(8, 8)).AsTask();
        Assert.False(early.IsCompleted);

        schedule.Add(Batch(2, prev: 0, (2, 1), (3, 1)));
        Assert.Equal(2, schedule.Running!.Bid);
        await Call(schedule, Ctx(2, 2));
        Assert.False(early.IsCompleted);
        await Call(schedule, Ctx(3, 2));

        await early.WaitAsync(TimeSpan.FromSeconds(5));
        Assert.Equal(8, schedule.Running!.Bid);
        schedule.Exit(Ctx(8, 8));
        Assert.Equal([2, 8], completed);
        Assert.Null(schedule.Running);
    }

    [Fact]
    public async Task PACTs_take_turns_in_tid_order_and_a_turn_ends_after_the_declared_calls()
    {
        var schedule = new LocalSchedule(Me);
        schedule.Add(Batch(5, prev: 0, (5, 2), (6, 1)));

        var second = schedule.Enter(Ctx(6, 5)).AsTask();
        await schedule.Enter(Ctx(5, 5, calls: 2));
        schedule.Exit(Ctx(5, 5, calls: 2));
        Assert.False(second.IsCompleted); // tid 5 declared two calls and made one

        await Call(schedule, Ctx(5, 5, calls: 2));
        await second.WaitAsync(TimeSpan.FromSeconds(5));
        Assert.Equal(6, schedule.CurrentPact(5));
    }

    [Fact]
    public async Task A_PACT_that_aborts_before_its_batch_starts_or_its_turn_comes_is_skipped_and_its_calls_refused()
    {
        var schedule = new LocalSchedule(Me);
        var completed = new List<long>();
        schedule.Attach(new PactSide(completed: b => completed.Add(b.Bid)));
        var boom = new TransactionAbortedException(AbortReason.User, "boom");

        // Tid 11 aborts before batch 10 reached this actor; tid 12 while tid 10 has its turn.
        Assert.Equal(PactStanding.Gone, schedule.AbortPact(10, 11, boom, out _));
        schedule.Add(Batch(10, prev: 0, (10, 1), (11, 2), (12, 1), (13, 1)));
        var waiting = schedule.Enter(Ctx(12, 10)).AsTask();
        Assert.Equal(PactStanding.Gone, schedule.AbortPact(10, 12, boom, out _));
        Assert.Equal(AbortReason.User, (await Assert.ThrowsAsync<TransactionAbortedException>(() => waiting)).Reason);

        await Call(schedule, Ctx(10, 10));
        Assert.Equal(13, schedule.CurrentPact(10)); // 11 and 12 are passed over
        Assert.Equal(AbortReason.User, Assert.Throws<TransactionAbortedException>(() => schedule.Enter(Ctx(11, 10, calls: 2))).Reason);
        await Call(schedule, Ctx(13, 10));
        Assert.Equal([10], completed);
    }

    [Fact]
    public async Task A_PACT_that_aborts_during_its_turn_keeps_it_until_its_running_call_returns_then_gives_it_up()
    {
        var schedule = new LocalSchedule(Me);
        var ended = new List<long>();
        schedule.Attach(new PactSide(abortedTurnEnded: p => ended.Add(p.Tid)));
        schedule.Add(Batch(20, prev: 0, (20, 2), (21, 1)));

        await schedule.Enter(Ctx(20, 20, calls: 2)); // its first of two calls runs
        var next = schedule.Enter(Ctx(21, 20)).AsTask();
        Assert.Equal(PactStanding.Running, schedule.AbortPact(20, 20, new InvalidOperationException("boom"), out var pact));
        Assert.False(next.IsCompleted);
        Assert.False(pact!.TurnEnded!.Task.IsCompleted);

        // The call returns: its turn ends without its second call, and the next PACT's starts.
        schedule.Exit(Ctx(20, 20, calls: 2));
        await pact.TurnEnded.Task.WaitAsync(TimeSpan.FromSeconds(5));
        await next.WaitAsync(TimeSpan.FromSeconds(5));
        Assert.Equal([20], ended);
        Assert.Equal(PactStanding.TurnEnded, schedule.AbortPact(20, 20, new InvalidOperationException("again"), out _));
    }

    /// <summary>
    /// Issue 50: a call late on its way is refused ahead only where its PACT's turn has not begun:
    /// the turn that waits for it ends (the next PACT's starts), a batch not yet here skips it, and
    /// the call is refused when it comes. A turn with a call in, waiting or done, is left alone.
    /// </summary>
    [Fact]
    public async Task A_late_call_is_refused_ahead_only_where_its_PACT_s_turn_has_not_begun()
    {
        var schedule = new LocalSchedule(Me);
        var completed = new List<long>();
        schedule.Attach(new PactSide(completed: b => completed.Add(b.Bid)));
        var late = new TransactionAbortedException(AbortReason.LateCall, "late");

        Assert.True(RefuseAhead(schedule, 40, 42, late)); // batch 40 has not come here yet
        schedule.Add(Batch(40, prev: 0, (40, 1), (41, 1), (42, 1), (43, 1)));
        var waiting = schedule.Enter(Ctx(43, 40)).AsTask(); // in, waiting for its turn
        Assert.True(RefuseAhead(schedule, 40, 40, late)); // its turn, no call in: the next turn starts
        Assert.Equal(41, schedule.CurrentPact(40));
        await schedule.Enter(Ctx(41, 40));
        Assert.False(RefuseAhead(schedule, 40, 41, late)); // its call runs
        Assert.False(RefuseAhead(schedule, 40, 43, late)); // its call is in, waiting
        Assert.False(RefuseAhead(schedule, 40, 40, late)); // refused already
        schedule.Exit(Ctx(41, 40));

        await waiting.WaitAsync(TimeSpan.FromSeconds(5)); // 42 is skipped
        schedule.Exit(Ctx(43, 40));
        Assert.Equal([40], completed);
        Assert.Equal(AbortReason.LateCall, Assert.Throws<TransactionAbortedException>(() => schedule.Enter(Ctx(40, 40))).Reason);
        Assert.Equal(AbortReason.LateCall, Assert.Throws<TransactionAbortedException>(() => schedule.Enter(Ctx(42, 40))).Reason);
        Assert.False(RefuseAhead(schedule, 40, 43, late)); // its batch completed here
        Assert.Equal(AbortReason.LateCall, Assert.IsType<TransactionAbortedException>(schedule.AbortOf(40, 42)).Reason); // asked again
        Assert.Null(schedule.AbortOf(40, 43));
    }

    private static bool RefuseAhead(LocalSchedule schedule, long bid, long tid, Exception cause)
    {
        if (!schedule.MayRefuseAhead(bid, tid))
        {
            return false;
        }

        schedule.AbortPact(bid, tid, cause, out _);
        return true;
    }

    [Fact]
    public async Task A_PACT_of_a_completed_batch_is_found_there_until_the_batch_commits()
    {
        var schedule = new LocalSchedule(Me);
        schedule.Add(Batch(30, prev: 0, (30, 1)));
        await Call(schedule, Ctx(30, 30));

        Assert.Equal(PactStanding.BatchCompleted, schedule.AbortPact(30, 30, new InvalidOperationException("boom"), out var pact));
        Assert.Equal(30, pact!.Tid);
        schedule.Committed(30);
        Assert.Equal(PactStanding.Gone, schedule.AbortPact(30, 30, new InvalidOperationException("boom"), out _));
    }

    [Fact]
    public async Task An_ACT_with_a_placement_hint_goes_before_the_queued_batches_beyond_it_and_behind_the_others()
    {
        var schedule = new LocalSchedule(Me);
        schedule.Add(Batch(10, prev: 0, (10, 1)));
        await schedule.Enter(Ctx(10, 10)); // batch 10 runs and has let a call in: it stays before any ACT
        schedule.Add(Batch(20, prev: 10, (20, 1)));
        schedule.Add(Batch(30, prev: 20, (30, 1)));

        // Its max(BeforeSet) elsewhere is 25: batch 20 precedes it here too, batch 30 follows it.
        var act = schedule.JoinAct(1, maxBeforeBid: 25);
        Assert.Equal(20, schedule.BatchBefore(act));
        Assert.Equal(30, schedule.BatchAfter(act));

        // Without a hint an ACT joins the tail, after batch 30.
        var tail = schedule.JoinAct(2);
        Assert.Equal(30, schedule.BatchBefore(tail));

        // Batch 30 starts only once the hinted ACT has left.
        schedule.Exit(Ctx(10, 10));
        await Call(schedule, Ctx(20, 20));
        Assert.Equal(ActGroupPhase.Open, act.Phase);
        Assert.Null(schedule.Running);
        schedule.LeaveAct(act, 1);
        Assert.Equal(30, schedule.Running!.Bid);
    }

    [Fact]
    public void A_hinted_ACT_does_not_join_ACTs_already_running_before_a_batch_so_the_batch_cannot_wait_for_ever()
    {
        var schedule = new LocalSchedule(Me);
        var running = schedule.JoinAct(1); // admitted at once: nothing before it
        schedule.Add(Batch(50, prev: 0, (50, 1))); // placed behind it
        Assert.Equal(ActGroupPhase.Open, running.Phase);

        var late = schedule.JoinAct(2, maxBeforeBid: 40); // would precede batch 50, but ACTs already run there
        Assert.NotSame(running, late);
        Assert.Equal(50, schedule.BatchBefore(late));
    }

    [Fact]
    public async Task A_running_batch_that_let_no_call_in_yet_is_put_back_behind_a_hinted_ACT_and_its_waiting_calls_run_after()
    {
        var schedule = new LocalSchedule(Me);
        var started = new List<long>();
        schedule.Attach(new PactSide(started: b => started.Add(b.Bid)));
        schedule.Add(Batch(40, prev: 0, (40, 1), (41, 1)));
        var second = schedule.Enter(Ctx(41, 40)).AsTask(); // waits for tid 40's turn

        var act = schedule.JoinAct(1, maxBeforeBid: 35);
        Assert.Equal(ActGroupPhase.Open, act.Phase); // nothing before it any more
        Assert.Null(schedule.Running);
        Assert.Equal(40, schedule.BatchAfter(act));
        await Task.Delay(20);
        Assert.False(second.IsCompleted);

        schedule.LeaveAct(act, 1);
        Assert.Equal([40, 40], started); // started again, its turns from the first
        await Call(schedule, Ctx(40, 40));
        await second.WaitAsync(TimeSpan.FromSeconds(5));
        Assert.Equal(41, schedule.CurrentPact(40));
    }

    [Fact]
    public async Task A_call_beyond_the_declaration_is_a_DeclarationError()
    {
        var schedule = new LocalSchedule(Me);
        schedule.Add(Batch(5, prev: 0, (5, 1), (6, 1)));
        await schedule.Enter(Ctx(5, 5));

        var extra = Assert.Throws<TransactionAbortedException>(() => schedule.Enter(Ctx(5, 5)));
        Assert.Equal(AbortReason.DeclarationError, extra.Reason);
        Assert.Contains($"declared 1 call(s) on actor {Me} but made more", extra.Message);
    }

    [Fact]
    public async Task An_abort_fails_waiting_calls_with_Cascading_refuses_old_batches_and_restarts_the_chain()
    {
        var schedule = new LocalSchedule(Me);
        schedule.Add(Batch(5, prev: 0, (5, 1), (6, 1)));
        var waiting = schedule.Enter(Ctx(6, 5)).AsTask();
        var early = schedule.Enter(Ctx(9, 9)).AsTask();

        schedule.AbortRange(5, 9, lastCompletedBid: 0);

        Assert.Equal(AbortReason.Cascading, (await Assert.ThrowsAsync<TransactionAbortedException>(() => waiting)).Reason);
        Assert.Equal(AbortReason.Cascading, (await Assert.ThrowsAsync<TransactionAbortedException>(() => early)).Reason);
        schedule.Add(Batch(9, prev: 5, (9, 1)));
        Assert.Null(schedule.Running); // ignored: aborted

        schedule.Add(Batch(12, prev: 0, (12, 1)));
        Assert.Equal(12, schedule.Running!.Bid);
        await Call(schedule, Ctx(12, 12));
        Assert.False(schedule.HasBatches);
    }

    [Fact]
    public async Task Every_batch_of_a_cascade_is_remembered_as_aborted_however_many_report_it()
    {
        // A cascade through 60 reports one range per aborted batch, all ending at its last bid:
        // a call for the first of them that arrives after all the reports is still refused.
        var schedule = new LocalSchedule(Me);
        for (var bid = 100L; bid < 160; bid++)
        {
            schedule.AbortRange(bid, 159, lastCompletedBid: 0);
        }

        Assert.True(schedule.IsAborted(100));
        Assert.True(schedule.IsAborted(159));
        Assert.False(schedule.IsAborted(99));
        Assert.False(schedule.IsAborted(160));
        var late = await Assert.ThrowsAsync<TransactionAbortedException>(async () => await schedule.Enter(Ctx(100, 100)));
        Assert.Equal(AbortReason.Cascading, late.Reason);
    }

    [Fact]
    public async Task A_cascade_that_PACTs_giving_up_late_calls_started_is_remembered_apart_from_the_one_before_it()
    {
        // Two cascades side by side: the first an ordinary one, the second started by PACTs that
        // gave up late calls. Late calls for each are refused with what its PACTs were told, and a
        // second report of the first cascade does not swallow the second.
        var schedule = new LocalSchedule(Me);
        schedule.AbortRange(100, 109, lastCompletedBid: 0);
        schedule.AbortRange(110, 119, lastCompletedBid: 0, AbortReason.LateCall);
        schedule.AbortRange(105, 109, lastCompletedBid: 0);
        schedule.AbortRange(115, 119, lastCompletedBid: 0, AbortReason.LateCall);

        Assert.Equal(AbortReason.Cascading, schedule.CascadeOf(109));
        Assert.Equal(AbortReason.LateCall, schedule.CascadeOf(110));
        Assert.Equal(AbortReason.LateCall, schedule.CascadeOf(119));
        Assert.Null(schedule.CascadeOf(120));
        Assert.Equal(AbortReason.Cascading, (await Assert.ThrowsAsync<TransactionAbortedException>(async () => await schedule.Enter(Ctx(100, 100)))).Reason);
        Assert.Equal(AbortReason.LateCall, (await Assert.ThrowsAsync<TransactionAbortedException>(async () => await schedule.Enter(Ctx(112, 112)))).Reason);

        // A failover's abort over some of the second cascade's bids: those do not run again.
        schedule.AbortRange(115, 115, lastCompletedBid: 0);
        Assert.Equal(AbortReason.Cascading, schedule.CascadeOf(115));
        Assert.Equal(AbortReason.LateCall, schedule.CascadeOf(116));
    }

    /// <summary>
    /// A call before its batch's BatchMsg makes the engine ask the coordinator for the batch, whose
    /// answer may come before the engine's await, so the batch is placed and started before the
    /// schedule's notice returns: the call must be on the list the start releases (a calm SmallBank
    /// run hung a root for 30 s in one of three runs when it was added after).
    /// </summary>
    [Fact]
    public async Task A_call_before_its_batch_asks_for_it_once_and_enters_when_the_answer_starts_the_batch_at_once()
    {
        var schedule = new LocalSchedule(Me);
        var asked = new List<long>();
        schedule.Attach(new PactSide(notArrived: ctx =>
        {
            asked.Add(ctx.Bid);
            schedule.Add(Batch(4, prev: 0, (4, 1), (5, 1)));
        }));

        await Call(schedule, Ctx(4, 4));
        var second = schedule.Enter(Ctx(5, 4)).AsTask();
        await second.WaitAsync(TimeSpan.FromSeconds(5));
        schedule.Exit(Ctx(5, 4));
        Assert.Equal([4], asked);
        Assert.Null(schedule.Running);
    }

    [Fact]
    public async Task A_batch_here_or_waiting_for_its_predecessor_is_not_asked_for()
    {
        var schedule = new LocalSchedule(Me);
        var asked = new List<long>();
        schedule.Attach(new PactSide(notArrived: ctx => asked.Add(ctx.Bid)));

        schedule.Add(Batch(8, prev: 2, (8, 1)));
        var waiting = schedule.Enter(Ctx(8, 8)).AsTask();
        var early = schedule.Enter(Ctx(2, 2)).AsTask();
        Assert.Equal([2], asked);

        schedule.Add(Batch(2, prev: 0, (2, 1)));
        await early.WaitAsync(TimeSpan.FromSeconds(5));
        schedule.Exit(Ctx(2, 2));
        await waiting.WaitAsync(TimeSpan.FromSeconds(5));
        schedule.Exit(Ctx(8, 8));
        Assert.Equal([2], asked);
    }

    [Fact]
    public async Task A_call_whose_batch_never_arrives_gives_up_at_its_deadline()
    {
        var schedule = new LocalSchedule(Me);
        var ctx = new TxnContext(7, TxnMode.Pact, Me, DateTimeOffset.UtcNow.AddMilliseconds(200), 7, AccessSet.Of(Me));
        var timedOut = await Assert.ThrowsAsync<TransactionAbortedException>(async () => await schedule.Enter(ctx).AsTask().WaitAsync(TimeSpan.FromSeconds(10)));
        Assert.Equal(AbortReason.Timeout, timedOut.Reason);
        Assert.Contains("never reached actor", timedOut.Message);
    }

    // The PACT engine's side of the schedule, as a test observes it.
    private sealed class PactSide(Action<SubBatch>? started = null, Action<SubBatch>? completed = null, Action<ScheduledPact>? abortedTurnEnded = null, Action<TxnContext>? notArrived = null) : IPactSide
    {
        public void BatchStarted(SubBatch batch) => started?.Invoke(batch);

        public void BatchNotArrived(TxnContext ctx) => notArrived?.Invoke(ctx);

        public void BatchCompleted(SubBatch batch) => completed?.Invoke(batch);

        public void AbortedTurnEnded(ScheduledPact pact) => abortedTurnEnded?.Invoke(pact);
    }
}

using Snapper.Protocol;

namespace Snapper.Scheduling;

/// <summary>
/// The calls of PACTs as the local schedule lets them in: each waits for its batch to start and for
/// its PACT's turn, a call beyond the declaration or into an aborted batch is refused, and a PACT
/// that aborts has its turn ended or skipped (the schedule itself, its batches and ACT groups, is
/// in <c>LocalSchedule.cs</c>).
/// </summary>
internal sealed partial class LocalSchedule
{
    /// <summary>
    /// Waits until it is <paramref name="ctx"/>'s turn, then counts the call in. Throws
    /// <see cref="TransactionAbortedException"/> for a call beyond the declaration, into an aborted
    /// batch, or of a PACT that aborted here (with that PACT's abort).
    /// </summary>
    public ValueTask Enter(TxnContext ctx)
    {
        ThrowIfAborted(ctx);
        if (current is not null && current.Bid == ctx.Bid)
        {
            var index = current.IndexOf(ctx.Tid);
            var pact = index >= 0 ? current.Pacts[index] : throw NotDeclared(ctx.Tid);
            if (pact.AbortedBy is not null)
            {
                throw pact.Refusal();
            }

            if (pact.CallsStarted >= pact.DeclaredCalls)
            {
                throw Aborts.Undeclared(ctx.Tid, actor, pact.DeclaredCalls + 1, $"PACT {ctx.Tid} declared {pact.DeclaredCalls} call(s) on actor {actor} but made more");
            }

            if (current.CompareToTurn(index) == 0)
            {
                pact.CallsStarted++;
                pact.AwaitsRelease |= ctx.Promoted;
                return ValueTask.CompletedTask;
            }

            ThrowIfLeaving();
            pact.Turn ??= new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
            return WaitThenEnter(pact.Turn.Task, ctx);
        }

        // Its PACT aborted here before this call came (a write it read was taken back, say, which
        // ended its turn and perhaps its batch here): the call gets that abort, which the caller may
        // retry, not the declaration error that a call after the batch completed would be.
        if (AbortedHere(ctx.Bid, ctx.Tid) is { } abort)
        {
            throw Aborts.PactRefused(ctx.Tid, abort);
        }

        if (ctx.Bid <= HighestCompletedBid)
        {
            var declared = ctx.Declared?.CallsOn(actor) ?? 0;
            throw Aborts.Undeclared(
                ctx.Tid,
                actor,
                declared + 1,
                $"PACT {ctx.Tid} declared {declared} call(s) on actor {actor} but made more: its batch {ctx.Bid} had already completed there (or its context was kept past the transaction)");
        }

        // Its batch has not started here yet: wait for it to arrive and start.
        ThrowIfLeaving();
        var first = !callsBeforeBatch.TryGetValue(ctx.Bid, out var early);
        if (first)
        {
            callsBeforeBatch[ctx.Bid] = early = [];
        }

        var started = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        early!.Add(started);
        if (first && NeverArrived(ctx.Bid))
        {
            // After the call is on the list: the engine may place and start the batch before this
            // returns (an answer that came before its await), and starting releases the list.
            pactSide?.BatchNotArrived(ctx);
        }

        return WaitForBatchThenEnter(started, ctx);
    }

    /// <summary>A call of <paramref name="ctx"/>'s PACT returned (or threw).</summary>
    public void Exit(TxnContext ctx)
    {
        if (current is null || current.Bid != ctx.Bid)
        {
            return; // its batch was aborted meanwhile
        }

        var pact = current.Find(ctx.Tid) ?? throw NotDeclared(ctx.Tid);
        pact.CallsFinished++;
        AdvanceTurns();
    }

    /// <summary>
    /// What <see cref="Protocol.ISnapperParticipant.DescribeWait"/> names instead of a tid when batch
    /// bid waits here for what is ahead of it (ACTs not committed, an earlier batch still running),
    /// not for a call of one of its PACTs: it could not have run meanwhile.
    /// </summary>
    public const long HeldUp = -1;

    /// <summary>
    /// What <see cref="Protocol.ISnapperParticipant.DescribeWait"/> names instead of a tid when batch
    /// bid never arrived here (its BatchMsg was lost): nothing here waits for it.
    /// </summary>
    public const long NotArrived = -3;

    /// <summary>True if batch <paramref name="bid"/> is not here and never was: not running, placed, waiting, completed or aborted.</summary>
    /// <remarks>Asked at every BatchMsg: loops, no allocation.</remarks>
    public bool NeverArrived(long bid)
    {
        if (bid <= HighestCompletedBid || current?.Bid == bid || aborted.Contains(bid))
        {
            return false;
        }

        foreach (var waiting in waitingForPredecessor.Values)
        {
            if (waiting.Bid == bid)
            {
                return false;
            }
        }

        foreach (var entry in entries)
        {
            if (entry is SubBatch placed && placed.Bid == bid)
            {
                return false;
            }
        }

        return true;
    }

    /// <summary>Batch <paramref name="bid"/> is placed here but waits for an earlier batch still running, or for ACTs ahead of it.</summary>
    public bool IsHeldUp(long bid)
    {
        if (current is not null)
        {
            return current.Bid < bid;
        }

        var actsAhead = 0;
        foreach (var entry in entries)
        {
            if (entry is SubBatch batch)
            {
                return batch.Bid == bid && actsAhead > 0;
            }

            actsAhead += ((ActGroup)entry).Members.Count;
        }

        return false;
    }

    /// <summary>Which PACT the running batch waits for here, for a declaration-error message.</summary>
    public string DescribeWait(long bid)
    {
        if (current is null || current.Bid != bid)
        {
            if (current is not null)
            {
                return $"actor {actor} is still running batch {current.Bid}";
            }

            var actsAhead = entries.TakeWhile(e => e is not SubBatch { } b || b.Bid != bid).OfType<ActGroup>().Sum(g => g.Members.Count);
            return actsAhead > 0
                ? $"actor {actor} has not started batch {bid}: {actsAhead} ACT(s) ahead of it have not committed"
                : $"actor {actor} has not started batch {bid}: its previous batch on this actor never arrived or completed";
        }

        return current.DescribeWait(actor);
    }

    /// <summary>The tid of the PACT whose turn it is in batch <paramref name="bid"/>, or 0.</summary>
    public long CurrentPact(long bid) => CurrentTurn(bid)?.Tid ?? 0;

    /// <summary>The PACT whose turn it is in batch <paramref name="bid"/>, if that batch runs here.</summary>
    public ScheduledPact? CurrentTurn(long bid) => current is not null && current.Bid == bid ? current.Current : null;

    /// <summary>
    /// A call of <paramref name="ctx"/>'s PACT failed here (or a call it made failed), in its turn:
    /// the PACT has aborted, so its turn ends once no call of it runs here any more.
    /// </summary>
    public void AbortInTurn(TxnContext ctx, Exception cause)
    {
        if (current is not null && current.Bid == ctx.Bid && current.Find(ctx.Tid) is { } pact)
        {
            pact.AbortedBy ??= cause;
        }
    }

    /// <summary>
    /// PACT <paramref name="tid"/> of batch <paramref name="bid"/> aborted (somewhere): a turn not
    /// reached yet is skipped and its waiting calls fail, a turn under way ends once no call of it
    /// runs, and its later calls are refused. Says where it stood (<paramref name="pact"/>: its
    /// place here, if it has one that may hold writes).
    /// </summary>
    public PactStanding AbortPact(long bid, long tid, Exception cause, out ScheduledPact? pact)
    {
        pact = null;
        if (aborted.Contains(bid))
        {
            return PactStanding.Gone;
        }

        if (current is not null && current.Bid == bid)
        {
            var index = current.IndexOf(tid);
            if (index < 0)
            {
                return PactStanding.Gone;
            }

            pact = current.Pacts[index];
            pact.AbortedBy ??= cause;
            var place = current.CompareToTurn(index);
            if (place < 0)
            {
                return PactStanding.TurnEnded;
            }

            if (place > 0)
            {
                pact.Turn?.TrySetException(pact.Refusal());
                return PactStanding.Gone;
            }

            if (pact.HasCallsRunning)
            {
                pact.TurnEnded ??= new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
                return PactStanding.Running;
            }

            AdvanceTurns(); // its turn ends now (the PACT engine's AbortedTurnEnded undoes its writes)
            return PactStanding.Gone;
        }

        foreach (var (completedBid, completedPacts) in completed)
        {
            if (completedBid == bid)
            {
                pact = Array.Find(completedPacts, p => p.Tid == tid);
                return pact is null ? PactStanding.Gone : PactStanding.BatchCompleted;
            }
        }

        if (bid <= HighestCompletedBid)
        {
            return PactStanding.Gone; // batches run in bid order: it resolved here long ago
        }

        skipped.Abort(bid, tid, cause); // its batch has not started here: skip its turn when it does
        return PactStanding.Gone;
    }

    /// <summary>
    /// Whether PACT <paramref name="tid"/> of batch <paramref name="bid"/>, whose call is late on its
    /// way here (it has not arrived), may be aborted here ahead of it (<see cref="AbortPact"/>, which
    /// ends or skips its turn and refuses the call when it comes): its turn here has not begun. False if a call of it has started or waits here for its turn, its turn is over
    /// (released, or aborted), or its batch completed, resolved or is aborting here.
    /// </summary>
    public bool MayRefuseAhead(long bid, long tid)
    {
        if (aborted.Contains(bid))
        {
            return false;
        }

        if (current is not null && current.Bid == bid)
        {
            return current.Find(tid) is { CallsStarted: 0, AbortedBy: null, TurnOver: false, Turn: null };
        }

        return bid > HighestCompletedBid && skipped.AbortedBy(bid, tid) is null;
    }

    /// <summary>Why PACT <paramref name="tid"/> of batch <paramref name="bid"/> aborted here, if it did and its batch is still here.</summary>
    public Exception? AbortOf(long bid, long tid) =>
        current is not null && current.Bid == bid ? current.Find(tid)?.AbortedBy : AbortedHere(bid, tid);

    /// <summary>
    /// PACT <paramref name="tid"/> of batch <paramref name="bid"/> makes no more calls here: its body
    /// has returned at its root having called here fewer times than it declared (a PACT may declare
    /// what it may touch). Its turn ends once the calls it made here have returned, or is skipped if
    /// it has not come; nothing it did here is undone. A no-op once its turn has ended here, so a
    /// release that comes late or twice does nothing.
    /// </summary>
    public void Release(long bid, long tid)
    {
        if (aborted.Contains(bid))
        {
            return;
        }

        if (current is not null && current.Bid == bid)
        {
            if (current.Find(tid) is { } pact && !pact.TurnOver)
            {
                pact.Release();
                AdvanceTurns();
            }

            return;
        }

        if (bid > HighestCompletedBid)
        {
            skipped.Release(bid, tid); // its batch has not started here: skip its turn when it does
        }
    }

    /// <summary>
    /// The activation is going: every call waiting here for its turn or for its batch fails with
    /// <paramref name="moved"/> before it is counted in, so its caller sends it again (to the next
    /// activation, which resumes this schedule) instead of waiting here for calls the going
    /// activation can no longer take.
    /// </summary>
    public void Bounce(Exception moved)
    {
        // Calls released from a wait before this, or let in by Orleans before it began to
        // deactivate, may still reach Enter: they must not start to wait either.
        leaving = moved;
        current?.Bounce(moved);

        foreach (var early in callsBeforeBatch.Values)
        {
            foreach (var call in early)
            {
                call.TrySetException(moved);
            }
        }

        callsBeforeBatch.Clear();
    }

    private async ValueTask WaitThenEnter(Task ready, TxnContext ctx)
    {
        await ready;
        await Enter(ctx);
    }

    // A call that came before its batch: the BatchMsg is on its way, unless the batch was resolved
    // and forgotten here (aborted long ago), so the wait ends at the transaction's deadline.
    private async ValueTask WaitForBatchThenEnter(TaskCompletionSource started, TxnContext ctx)
    {
        var left = ctx.Deadline - clock.GetUtcNow();
        if (left < MaxWait)
        {
            try
            {
                await started.Task.WaitAsync(left > TimeSpan.Zero ? left : TimeSpan.Zero, clock);
            }
            catch (TimeoutException)
            {
                if (callsBeforeBatch.TryGetValue(ctx.Bid, out var waiting) && waiting.Remove(started) && waiting.Count == 0)
                {
                    callsBeforeBatch.Remove(ctx.Bid);
                }

                throw new TransactionAbortedException(AbortReason.Timeout, $"its batch {ctx.Bid} never reached actor {actor} before the transaction's deadline") { Tid = ctx.Tid, Blocker = AbortBlocker.Batch(actor, current?.Bid ?? ctx.Bid) };
            }
        }

        await started.Task;
        await Enter(ctx);
    }

    // Why PACT tid of batch bid, which is not running here, aborted here, if it did: a completed
    // batch keeps its PACTs until it commits, a batch not started yet the aborts of the turns it
    // will skip.
    private Exception? AbortedHere(long bid, long tid)
    {
        foreach (var (completedBid, completedPacts) in completed)
        {
            if (completedBid == bid)
            {
                return Array.Find(completedPacts, p => p.Tid == tid)?.AbortedBy;
            }
        }

        return skipped.AbortedBy(bid, tid);
    }

    private TransactionAbortedException NotDeclared(long tid) =>
        Aborts.Undeclared(tid, actor, 1, $"PACT {tid} called actor {actor}, which its declaration does not name");

    // A call that would wait here while the activation is going would keep it from going, and
    // with it the messages that end the wait: its caller sends it to the next activation instead.
    private void ThrowIfLeaving()
    {
        if (leaving is not null)
        {
            throw leaving;
        }
    }

    private void ThrowIfAborted(TxnContext ctx)
    {
        if (aborted.CascadeOf(ctx.Bid) is { } cascade)
        {
            throw new TransactionAbortedException(cascade, $"its batch {ctx.Bid} was aborted") { Tid = ctx.Tid, Blocker = AbortBlocker.Batch(actor, ctx.Bid) };
        }
    }
}

using Snapper.Protocol;

namespace Snapper.Hybrid;

/// <summary>
/// The serializability check an ACT's root runs before two-phase commit (Snapper §4.4.3, Theorem
/// 4.2 condition 3) and the commit rule that follows it (§4.4.4).
/// </summary>
/// <remarks>
/// <para>Sure violation: max(BeforeSet) ≥ min(AfterSet) over the AfterSet known so far (the batches
/// the actors reported after the ACT, and any batch placed behind it since, see
/// <see cref="RunningAct"/>) aborts with <see cref="AbortReason.SerializabilityViolation"/>.</para>
/// <para>Otherwise the ACT waits until every batch it read from has committed. With a complete
/// AfterSet that is the paper's "commit once max(BeforeSet) has committed". With an incomplete one
/// the paper passes the ACT only if its BeforeSet has already committed; instead of aborting when
/// it has not, we wait for it: once every batch in the BeforeSet has committed, every batch that
/// can still come after the ACT is uncommitted and batches commit in bid order, so its bid is
/// above max(BeforeSet) — the paper's exception, reached later rather than refused. The wait is
/// bounded by the deadlock timeout (<see cref="AbortReason.SerializabilityUncertain"/> when the
/// AfterSet was incomplete, <see cref="AbortReason.Deadlock"/> otherwise), and a batch from the
/// BeforeSet that aborts aborts the ACT (<see cref="AbortReason.Cascading"/>).</para>
/// <para>The sure-violation test and <see cref="RunningAct.WaitForBatch"/> overlap on purpose:
/// every batch of the AfterSet was reported to the ACT's <see cref="RunningAct"/> when it was
/// placed, and a max(BeforeSet) at or above an uncommitted AfterSet batch is itself uncommitted,
/// so waiting for it would be refused too. The test decides without registering a wait.</para>
/// </remarks>
internal static class SerializabilityCheck
{
    /// <summary>
    /// The decision to commit with, or the abort that refuses it (returned, not thrown: under
    /// contention refusals are common and an exception per refusal costs more than the check).
    /// </summary>
    /// <param name="act">The ACT's record at its root.</param>
    /// <param name="info">What the ACT's calls reported.</param>
    /// <param name="outcomeOf">Asks a batch's coordinator how the batch ended, once it has.</param>
    /// <param name="timeout">The deadlock timeout.</param>
    /// <param name="clock">The clock.</param>
    public static async ValueTask<(HybridDecision Decision, TransactionAbortedException? Refusal)> Run(RunningAct act, ExecutionInfo info, Func<BatchRef, Task<BatchOutcome>> outcomeOf, TimeSpan timeout, TimeProvider clock)
    {
        if (info.Bounds is not { } bounds)
        {
            return (HybridDecision.None, null); // no batch before it anywhere: nothing can make it unserializable
        }

        var minAfter = Math.Min(bounds.MinAfterBid, act.MinBatchBehind);
        if (bounds.MaxBeforeBid >= minAfter)
        {
            return (default, new TransactionAbortedException(
                AbortReason.SerializabilityViolation,
                $"max(BeforeSet) = {bounds.MaxBeforeBid} ≥ min(AfterSet) = {minAfter}: it runs after batch {bounds.MaxBeforeBid} on one actor but before batch {minAfter} on another")
            { Tid = act.Tid, Blocker = AbortBlocker.Batch(minAfter == bounds.MinAfterBid ? bounds.MinAfterActor : act.MinBatchBehindAt, minAfter) });
        }

        var onTimeout = info.AfterSetIncomplete ? AbortReason.SerializabilityUncertain : AbortReason.Deadlock;
        var committedThrough = 0L;
        foreach (var batch in bounds.BeforeBatches)
        {
            var outcome = outcomeOf(batch);
            var end = await act.WaitForBatch(batch.Bid, outcome, timeout, clock);
            if (end != BatchWaitEnd.Ready)
            {
                return (default, act.Refusal(end, batch.Bid, bounds.WhereRead(batch), $"batch {batch.Bid}, whose state it read, to commit", timeout, onTimeout));
            }

            if (!(await outcome).Committed)
            {
                return (default, new TransactionAbortedException(AbortReason.Cascading, $"batch {batch.Bid}, whose state it read, aborted") { Tid = act.Tid, Blocker = AbortBlocker.Batch(bounds.WhereRead(batch), batch.Bid) });
            }

            // Batches resolve in bid order: every batch up to this one has committed or aborted.
            committedThrough = Math.Max(committedThrough, batch.Bid);
        }

        return (new HybridDecision(bounds.MaxBeforeBid, committedThrough), null);
    }
}

namespace Snapper.Coordination;

/// <summary>
/// A coordinator's part when a silo departs (docs/architecture.md, "A silo dies"): the ring
/// membership halts every surviving coordinator, seals the failover, and starts a new token.
/// </summary>
/// <remarks>
/// A halted coordinator forms no batch until the new token comes: its own token is dropped, and so
/// is any token of an older view still on its way (the dead silo may have held it, and the survivors
/// cannot know whether it did). Its batches not decided yet abort, like the batches of an abort
/// cascade that ends at the failover's seal: a batch waiting for a participant on the dead silo, or
/// behind a batch of a dead coordinator that never reached its actors, would wait for ever. Batches
/// already decided to commit keep going; whether they commit depends on their predecessors, the dead
/// coordinators' among them, which the logs answer (<see cref="Failover.DepartedSilos"/>).
/// </remarks>
internal sealed partial class Coordinator
{
    private long haltedBefore; // tokens of views older than this epoch are dropped: a failover replaced them
    private long tidHighWater; // the highest tid this coordinator saw that may have been handed out

    public Task<long> Halt(string silo, long epoch)
    {
        haltedBefore = Math.Max(haltedBefore, epoch);
        if (token is { } held)
        {
            NoteTids(held);
            token = null;
            parked = false;
        }

        var cause = new TransactionAbortedException(
            AbortReason.Failure,
            $"silo {silo} left the cluster while its batch was undecided; the ring aborts its undecided batches and re-forms without it");
        foreach (var batch in unresolved.Values.Where(b => b.Phase is BatchPhase.Emitted or BatchPhase.Completed).ToList())
        {
            FailBatch(batch, 0, cause);
        }

        return Task.FromResult(Math.Max(tidHighWater, view.TidFloor));
    }

    public Task FailOver(long through) => CascadeSealed(through);

    private void NoteTids(BatchToken seen) => tidHighWater = Math.Max(tidHighWater, Math.Max(seen.LastTid, seen.ReservedThrough));
}

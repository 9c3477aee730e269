using Snapper.Diagnostics;
using Snapper.Concurrency;
using Snapper.Hybrid;
using Snapper.Logging;

namespace Snapper.Act;

/// <summary>The participant's side of two-phase commit with presumed abort (Snapper §4.3.3), and early lock release (Thorp §III).</summary>
internal sealed partial class ActParticipant<TState>
{
    public async Task<Vote> Prepare(long tid, HybridDecision decision, bool earlyLockRelease)
    {
        if (!records.TryGetValue(tid, out var record))
        {
            return Vote.No; // it aborted here already; presumed abort
        }

        precedingActsMaxBeforeBid = Math.Max(precedingActsMaxBeforeBid, decision.MaxBeforeBid);
        if (@lock.HeldBy(tid) != LockMode.Write || record.Working is null)
        {
            Forget(tid);
            return Vote.ReadOnly;
        }

        record.State = ActRecordState.Prepared;
        if (earlyLockRelease && activeVersions.Count < runtime.Options.MaxCommitDependencyChain)
        {
            // Thorp: release at Prepare, before the write below is durable; later ACTs build on
            // this state and depend on this ACT. Past the chain limit it keeps its lock instead.
            activeVersions.Add((tid, new ActDependency(tid, record.Context.Root, record.Context.RootSilo), record.Working, record.WorkingVersion));
            record.ReleasedEarly = true;
            @lock.Release(tid);
        }

        if (logger is not null)
        {
            var (state, delta) = versions.LogForm.Encode(runtime.Serializer, record.Base, record.Working!);
            await logger.Append(new PrepareRecord(tid, Id, record.Context.Root, state) { Version = record.WorkingVersion, Delta = delta });
        }

        return Vote.Yes;
    }

    public Task Commit(long tid, HybridDecision decision)
    {
        if (SettleUndecided(tid, committed: true))
        {
            return Task.CompletedTask;
        }

        if (records.Remove(tid, out var record))
        {
            Apply(record, decision);

            // Informational: recovery decides from the root's CoordCommit, so the vote-to-commit
            // path does not wait for this write. A failure is reported by the logger.
            _ = logger?.Append(new CommitRecord(tid, Id, ReadOnlyMemory<byte>.Empty));
        }
        else if (!settledByRoot.Contains(tid))
        {
            // Not prepared here, nor handed over by an earlier activation, nor settled by asking
            // the root: a write it prepared was lost. Said loudly; never silently.
            LogMessages.CommitOfUnknownAct(runtime.Diagnostics, Id, tid);
        }

        return Task.CompletedTask;
    }

    public async Task CommitOnePhase(long tid, HybridDecision decision)
    {
        if (!records.TryGetValue(tid, out var record) || record.State != ActRecordState.Active)
        {
            // Its record expired, or its activation went with it: nothing of it was logged here.
            throw new TransactionAbortedException(AbortReason.Failure, $"{Id} no longer knows the transaction") { Tid = tid };
        }

        record.State = ActRecordState.Committing; // this actor decides now: no expiry, no other call
        if (logger is not null && record.Working is not null)
        {
            try
            {
                // Durable before the locks go: a later transaction must never see a lost write.
                var (state, delta) = versions.LogForm.Encode(runtime.Serializer, record.Base, record.Working);
                await logger.Append(new CommitRecord(tid, Id, state) { Version = record.WorkingVersion, Delta = delta });
            }
            catch (Exception e)
            {
                // A failed append is not durable (the logger settles it as lost): aborted, for sure.
                Forget(tid);
                throw new TransactionAbortedException(AbortReason.Failure, $"{Id} could not log its commit: {e.Message}", e) { Tid = tid };
            }
        }

        records.Remove(tid);
        Apply(record, decision);
    }

    public Task Abort(long tid)
    {
        if (records.TryGetValue(tid, out var committing) && committing.State == ActRecordState.Committing)
        {
            return Task.CompletedTask; // a one-phase commit is this actor's decision, not the root's
        }

        if (!records.ContainsKey(tid))
        {
            refusedOnArrival.Remember(tid); // a call of it that was held on its way may still come
        }

        SettleUndecided(tid, committed: false);
        Forget(tid);
        return Task.CompletedTask;
    }

    // The ACT committed here: the batches it waited for are committed (their BatchCommit may still
    // be on its way), then its own write; then the locks and its place in the schedule go.
    private void Apply(ActRecord<TState> record, HybridDecision decision)
    {
        versions.CommitBatchesThrough(decision.CommittedBid);
        if (record.ReleasedEarly)
        {
            // Its version and the ones before it (its dependencies, committed first) become
            // committed; not found: a later version that built on it has committed already.
            var at = ActiveVersionOf(record.Context.Tid);
            if (at >= 0)
            {
                var (_, _, state, version) = activeVersions[at];
                activeVersions.RemoveRange(0, at + 1);
                versions.CommitAct(state, version);
            }
        }
        else if (record.Working is { } written)
        {
            // Built on the newest active version while holding the lock: every active version
            // is one of its dependencies, all committed before it.
            activeVersions.Clear();
            versions.CommitAct(written, record.WorkingVersion);
        }

        precedingActsMaxBeforeBid = Math.Max(precedingActsMaxBeforeBid, decision.MaxBeforeBid);
        @lock.Release(record.Context.Tid);
        schedule.LeaveAct(record.Group, record.Context.Tid);
    }

    private void Forget(long tid)
    {
        @lock.Release(tid);
        if (records.Remove(tid, out var record))
        {
            if (record.ReleasedEarly && ActiveVersionOf(tid) is var at and >= 0)
            {
                // Cascading abort: the versions built on this one go too; their ACTs depend on
                // this one and will abort when they validate.
                activeVersions.RemoveRange(at, activeVersions.Count - at);
            }

            schedule.LeaveAct(record.Group, tid);
        }
    }

    private int ActiveVersionOf(long tid)
    {
        for (var i = 0; i < activeVersions.Count; i++)
        {
            if (activeVersions[i].Tid == tid)
            {
                return i;
            }
        }

        return -1;
    }

}

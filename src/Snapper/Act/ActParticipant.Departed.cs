using System.Collections.Immutable;
using Snapper.Recovery;
using Snapper.Diagnostics;
using Snapper.Logging;
using Snapper.State;

namespace Snapper.Act;

/// <summary>
/// After a silo died (docs/architecture.md, "A silo dies"): the ACTs this actor took part in whose
/// root or whose previous activation was there.
/// </summary>
internal sealed partial class ActParticipant<TState>
{
    // Writes this actor prepared in an activation on a silo that died, for ACTs not committed in the
    // logs when the failover read them, by tid: a root that survived may still commit them.
    private Dictionary<long, PrepareRecord>? undecided;
    private TaskCompletionSource? undecidedSettled;

    // ACTs settled here by asking their roots, for a while: a Commit for one of them is no news.
    private readonly RecentTids settledByRoot = new(1024);

    /// <summary>Completes once no write prepared in a previous activation that died is undecided here; transactional calls wait for it.</summary>
    public Task WhenUndecidedSettled => undecidedSettled?.Task ?? Task.CompletedTask;

    /// <summary>This activation follows one that died having prepared <paramref name="prepared"/>: ask their roots how they ended.</summary>
    public void AdoptUndecided(IReadOnlyList<PrepareRecord> prepared)
    {
        if (prepared.Count == 0)
        {
            return;
        }

        undecided = prepared.ToDictionary(p => p.Tid);
        undecidedSettled = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        foreach (var write in prepared)
        {
            _ = AskRoot(write.Tid, write.Coordinator, () => undecided?.ContainsKey(write.Tid) == true);
        }
    }

    /// <summary>
    /// The activation is going (deactivated, or migrating): the writes prepared here for ACTs not
    /// decided yet, for the next activation to settle with their roots (<see cref="AdoptUndecided"/>).
    /// Unprepared records are dropped with their locks: their roots' Prepare finds none here and
    /// the ACT aborts. Called once no call of the activation runs any more.
    /// </summary>
    public ImmutableArray<PreparedWrite> HandOver()
    {
        var writes = ImmutableArray.CreateBuilder<PreparedWrite>();
        foreach (var (tid, record) in records)
        {
            if (record.State == ActRecordState.Prepared && record.Working is { } written)
            {
                writes.Add(new PreparedWrite(tid, record.Context.Root, record.WorkingVersion, runtime.Serializer.Serialize(written), Delta: false));
            }
        }

        foreach (var (tid, write) in undecided ?? [])
        {
            writes.Add(new PreparedWrite(tid, write.Coordinator, write.Version, write.State, write.Delta));
        }

        return writes.ToImmutable();
    }

    /// <summary>
    /// A silo died: the ACTs here wait for their roots, some of which may have died with it (the
    /// records of those would hold their locks until their deadline, and the prepared ones for
    /// ever). Ask each root; one that lost the ACT answers from the logs (<see cref="ActOutcome"/>).
    /// </summary>
    public void AskRootsOfUndecided()
    {
        foreach (var (tid, record) in records)
        {
            _ = AskRoot(tid, record.Context.Root, () => records.ContainsKey(tid));
        }
    }

    // The root is asked until it answers (DependencyOutcome: a root on the dead silo activates
    // elsewhere once the failover is sealed); the ACT is then settled here as the root would have:
    // an abort takes it back; a commit applies a prepared write (a write not prepared here cannot
    // have been part of a commit: it was made by a call that outlived its transaction, and expires).
    private async Task AskRoot(long tid, ActorId root, Func<bool> stillUndecided)
    {
        var committed = await DependencyOutcome(new ActDependency(tid, root), durable: true);
        if (!stillUndecided())
        {
            return; // the root's own Commit or Abort came first
        }

        settledByRoot.Remember(tid); // the root's own Commit may still come: it is no news then

        if (!committed)
        {
            await Abort(tid);
        }
        else if (undecided?.ContainsKey(tid) == true)
        {
            await Commit(tid, Hybrid.HybridDecision.None);
        }
        else if (records.TryGetValue(tid, out var record) && record.State == ActRecordState.Prepared)
        {
            // The batch before the ACT here had committed when its root decided: it commits first,
            // or its later BatchCommit would put back the state the ACT's write replaced.
            var before = record.BeforeBatch.Bid;
            await Commit(tid, new Hybrid.HybridDecision(before, before));
        }
    }

    // A decision for a write prepared in the activation that died: a commit makes its state the
    // committed one, unless a later committed version is here already. True if tid was one of them.
    private bool SettleUndecided(long tid, bool committed)
    {
        if (undecided is null || !undecided.Remove(tid, out var write))
        {
            return false;
        }

        if (committed && write.Version > versions.CommittedVersion)
        {
            if (!write.Delta)
            {
                versions.CommitAct(runtime.Serializer.Deserialize<TState>(write.State.Span), write.Version);
            }
            else if (write.Version == versions.CommittedVersion + 1 && StateDeltas<TState>.Kind is { } deltas)
            {
                // A delta is logged only against a state that commits or aborts by the logs alone
                // (never against another ACT's early-released one), so its base is the committed state.
                versions.CommitAct(deltas.AppliedToCopy(runtime.Serializer, versions.Committed, write.State.Span), write.Version);
            }
            else
            {
                LogMessages.UndecidedDeltaWithoutBase(runtime.Diagnostics, Id, tid, write.Version, versions.CommittedVersion);
            }
        }

        if (undecided.Count == 0)
        {
            undecided = null;
            undecidedSettled!.TrySetResult();
        }

        return true;
    }
}

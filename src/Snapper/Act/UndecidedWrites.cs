using Snapper.Diagnostics;
using Snapper.Logging;
using Snapper.State;

namespace Snapper.Act;

/// <summary>
/// The writes an actor prepared in an activation on a silo that died, for ACTs not committed in the
/// logs when the failover read them, by tid (docs/architecture.md, "A silo dies"): a root that
/// survived may still commit them, so the actor serves no transaction until each is settled, by
/// its root's Commit or Abort or by asking the root.
/// </summary>
internal sealed class UndecidedWrites<TState>(ActorId id, ActServices services, StateVersions<TState> versions)
    where TState : class
{
    // ACTs settled here by asking their roots, for a while: a Commit for one of them is no news.
    private readonly RecentTids settledByRoot = new(1024);
    private Dictionary<long, PrepareRecord>? undecided;
    private TaskCompletionSource? settled;

    /// <summary>Completes once none is undecided.</summary>
    public Task WhenSettled => settled?.Task ?? Task.CompletedTask;

    /// <summary>The writes still undecided.</summary>
    public IEnumerable<PrepareRecord> Writes => undecided is null ? [] : undecided.Values;

    /// <summary>Whether ACT <paramref name="tid"/>'s write is still undecided.</summary>
    public bool Contains(long tid) => undecided?.ContainsKey(tid) == true;

    /// <summary>This activation follows one that died having prepared <paramref name="prepared"/>.</summary>
    public void Adopt(IReadOnlyList<PrepareRecord> prepared)
    {
        if (prepared.Count > 0)
        {
            undecided = prepared.ToDictionary(p => p.Tid);
            settled = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        }
    }

    /// <summary>ACT <paramref name="tid"/> was settled here by asking its root.</summary>
    public void SettledByRoot(long tid) => settledByRoot.Remember(tid);

    /// <summary>Whether ACT <paramref name="tid"/> was settled here by asking its root (its root's own Commit is then no news).</summary>
    public bool WasSettledByRoot(long tid) => settledByRoot.Contains(tid);

    /// <summary>The ACTs lately settled here by asking their roots.</summary>
    public IEnumerable<long> SettledByRootTids => settledByRoot.Tids;

    // A decision for a write prepared in an earlier activation: a commit makes its state the
    // committed one, unless a later committed version is here already, after the batches it was
    // built on (handed over uncommitted: the ACT committed only once they had). The Commit's
    // HybridDecision is not needed for that, nor there when the root was asked: the versions say
    // it. True if tid was one of them.
    public bool Settle(long tid, bool committed)
    {
        if (undecided is null || !undecided.Remove(tid, out var write))
        {
            return false;
        }

        if (committed && write.Version > versions.CommittedVersion)
        {
            versions.CommitBatchesBuiltOn(write.Version);
            if (!write.Delta)
            {
                versions.CommitAct(services.Serializer.Deserialize<TState>(write.State.Span), write.Version);
            }
            else if (write.Version == versions.CommittedVersion + 1 && StateDeltas<TState>.Kind is { } deltas)
            {
                // A delta is logged only against a state that commits or aborts by the logs alone
                // (never against another ACT's early-released one), so its base is the committed state.
                versions.CommitAct(deltas.AppliedToCopy(services.Serializer, versions.Committed, write.State.Span), write.Version);
            }
            else
            {
                LogMessages.UndecidedDeltaWithoutBase(services.Diagnostics, id, tid, write.Version, versions.CommittedVersion);
            }
        }

        if (undecided.Count == 0)
        {
            undecided = null;
            settled!.TrySetResult();
        }

        return true;
    }
}

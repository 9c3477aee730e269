using System.Diagnostics;
using System.Runtime.InteropServices;

using Snapper.Recovery;
using Snapper.Serialization;

namespace Snapper.State;

/// <summary>
/// The versions of one actor's state that both engines see (Snapper §4.2.3, §4.4.1): the last
/// committed state, then the state each completed but uncommitted PACT batch left, oldest first.
/// An ACT admitted after such a batch works on the newest of them (it may start before the batch
/// commits), and a batch starts on whatever the ACTs before it committed.
/// </summary>
/// <remarks>
/// <para>Every state written here has a version number, one more than that of the state it was
/// built from. Writes on one actor are serial, so the committed state with the highest version is
/// the last one, wherever it was logged or handed over: recovery and an actor re-activating on
/// another silo both pick it by version.</para>
/// <para>Owned by one actor; touched only inside its turns.</para>
/// </remarks>
internal sealed class StateVersions<TState>(TState committed, long committedVersion)
    where TState : class
{
    // The states left by completed batches not yet committed, in bid order.
    private readonly List<BatchVersion> uncommitted = new();

    /// <summary>
    /// The versions of a newly activated actor: its last committed state if recovery or a hand-over
    /// found one (<paramref name="found"/>), else <paramref name="initial"/>. Either must round-trip
    /// through the serializer, which is checked here so a bad state type fails at activation with a
    /// message naming it.
    /// </summary>
    public static StateVersions<TState> Load(ActorId id, IStateSerializer serializer, TState initial, CommittedState? found)
    {
        ArgumentNullException.ThrowIfNull(initial);
        TState committed;
        try
        {
            // Both ways a state travels: copied for a writer, serialized into the log.
            committed = serializer.Deserialize<TState>(serializer.Serialize(serializer.Copy(initial)));
        }
        catch (Exception e)
        {
            throw new SnapperException(
                $"The state type {typeof(TState).FullName} of actor {id} cannot be serialized by {serializer.GetType().Name}: {e.Message}", e);
        }

        if (found is { } logged)
        {
            try
            {
                // An empty whole state under deltas is the initial one (LogEvaluation).
                // (ActivationLoader completes deltas on a state at rest before this.)
                committed = logged.State.IsEmpty && !logged.Deltas.IsDefaultOrEmpty && !logged.OnBaseAtRest ? committed : serializer.Deserialize<TState>(logged.State.Span);
                committed = ApplyDeltas(id, serializer, committed, logged);
            }
            catch (Exception e)
            {
                throw new SnapperException(
                    $"Actor {id}'s last committed state (version {logged.Version}) cannot be read as a {typeof(TState).FullName}: {e.Message}", e);
            }
        }

        return new StateVersions<TState>(committed, found?.Version ?? 0);
    }

    // The deltas the logs hold after the last whole state, in order (none for a state logged whole).
    private static TState ApplyDeltas(ActorId id, IStateSerializer serializer, TState whole, CommittedState logged)
    {
        if (logged.Deltas.IsDefaultOrEmpty)
        {
            return whole;
        }

        var deltas = StateDeltas<TState>.Kind ?? throw new SnapperException(
            $"Actor {id}'s log holds changes to its state, but its state type {typeof(TState).FullName} does not implement IDeltaState<,> (any more).");
        var version = logged.WholeVersion;
        foreach (var delta in logged.Deltas)
        {
            version++;
            try
            {
                whole = deltas.Apply(serializer, whole, delta.Span);
            }
            catch (Exception e)
            {
                throw new SnapperException($"Actor {id}'s logged change to state version {version} cannot be applied: {e.Message}", e);
            }
        }

        return whole;
    }

    /// <summary>How this activation writes the actor's states to the log (whole, or as deltas).</summary>
    public StateLogForm<TState> LogForm { get; } = new();

    /// <summary>The last committed state.</summary>
    public TState Committed { get; private set; } = committed;

    /// <summary>The version of <see cref="Committed"/> (0: the initial state).</summary>
    public long CommittedVersion { get; private set; } = committedVersion;

    /// <summary>The highest bid whose state became committed here (0: none yet).</summary>
    public long LastCommittedBid { get; private set; }

    /// <summary>An earlier activation had seen the batches through <paramref name="bid"/> commit (their states are in <see cref="Committed"/>).</summary>
    public void CommittedThroughBid(long bid) => LastCommittedBid = Math.Max(LastCommittedBid, bid);

    /// <summary>True while a completed batch's state waits for its commit.</summary>
    public bool HasUncommitted => uncommitted.Count > 0;

    /// <summary>The batches completed here and not committed yet, with the coordinators that emitted them.</summary>
    public IEnumerable<(long Bid, string Coordinator)> UncommittedBatches => uncommitted.Select(v => (v.Bid, v.Coordinator)).ToList();

    /// <summary>The states the batches completed here and not committed yet left (null: a batch that did not write here), in bid order.</summary>
    public IEnumerable<(long Bid, string Coordinator, TState? State, long Version)> UncommittedStates => uncommitted.Select(v => (v.Bid, v.Coordinator, v.State, v.Version)).ToList();

    /// <summary>The newest completed batch whose state waits for its commit (0: none).</summary>
    public long NewestUncommittedBid => uncommitted.Count > 0 ? uncommitted[^1].Bid : 0;

    /// <summary>True while a completed batch numbered <paramref name="bid"/> or lower waits for its commit.</summary>
    public bool HasUncommittedThrough(long bid) => uncommitted.Count > 0 && uncommitted[0].Bid <= bid;

    /// <summary>
    /// The last batch that completed here and was not aborted (bid 0: none), the coordinator that
    /// emitted it, and whether it has committed. An ACT admitted now runs after it: it is the ACT's
    /// bound on this actor's BeforeSet (§4.4.3), and unless committed the ACT must wait for it.
    /// </summary>
    public (long Bid, string? Coordinator, bool Committed) LastBatch =>
        uncommitted.Count > 0 ? (uncommitted[^1].Bid, uncommitted[^1].Coordinator, false) : (LastCommittedBid, null, true);

    /// <summary>How many times an ACT has read or copied the newest state (<see cref="ReadLatestForAct"/>).</summary>
    public long ActReads { get; private set; }

    /// <summary>The newest state (that of the last completed batch that wrote here, or the committed one) and its version.</summary>
    public (TState State, long Version) ReadLatest()
    {
        for (var i = uncommitted.Count - 1; i >= 0; i--)
        {
            if (uncommitted[i].State is { } state)
            {
                return (state, uncommitted[i].Version);
            }
        }

        return (Committed, CommittedVersion);
    }

    /// <summary>As <see cref="ReadLatest"/>, for an ACT: counted, since a PACT's write an ACT has read can no longer be taken back alone.</summary>
    public (TState State, long Version) ReadLatestForAct()
    {
        ActReads++;
        return ReadLatest();
    }

    /// <summary>A batch completed here, leaving <paramref name="written"/> with <paramref name="version"/> (null: it only read).</summary>
    public void BatchCompleted(long bid, string coordinator, TState? written, long version) => uncommitted.Add(new BatchVersion(bid, coordinator, written, version));

    /// <summary>
    /// A PACT of completed batch <paramref name="bid"/> aborted, taking back its write and every write
    /// made here after it: that batch and each later one that wrote here now leave
    /// <paramref name="before"/> (null: the state before batch <paramref name="bid"/>), each with its
    /// own version so it supersedes the logged state. Returns the batches changed, to be logged again.
    /// </summary>
    public List<(long Bid, string Coordinator, TState State, long Version)> TakeBackFrom(long bid, TState? before)
    {
        var changed = new List<(long, string, TState, long)>();
        var batches = CollectionsMarshal.AsSpan(uncommitted);
        for (var i = 0; i < batches.Length; i++)
        {
            ref var batch = ref batches[i];
            if (batch.Bid < bid || (batch.State is null && batch.Bid != bid))
            {
                continue;
            }

            before ??= StateBefore(i);
            batch.State = before;
            changed.Add((batch.Bid, batch.Coordinator, before, batch.Version));
        }

        return changed;
    }

    /// <summary>
    /// Batches commit in bid order, so every batch up to <paramref name="bid"/> is committed now.
    /// Idempotent: an ACT's commit applies the batch commits it waited for before BatchCommit arrives.
    /// A batch's state never replaces a newer committed one: an ACT that built on it may have
    /// committed first where its write was handed over (<see cref="CommitBatchesBuiltOn"/>).
    /// </summary>
    public void CommitBatchesThrough(long bid)
    {
        var i = 0;
        for (; i < uncommitted.Count && uncommitted[i].Bid <= bid; i++)
        {
            LastCommittedBid = uncommitted[i].Bid;
            if (uncommitted[i].State is { } state && uncommitted[i].Version > CommittedVersion)
            {
                Committed = state;
                CommittedVersion = uncommitted[i].Version;
            }
        }

        uncommitted.RemoveRange(0, i);
    }

    /// <summary>
    /// A write of <paramref name="version"/> that an ACT prepared on the newest state committed:
    /// every batch that wrote a state older than it came before the ACT, which committed only once
    /// they had, so they are committed now (their BatchCommit may still be on its way).
    /// </summary>
    public void CommitBatchesBuiltOn(long version)
    {
        long through = 0;
        foreach (var batch in uncommitted)
        {
            if (batch.State is not null)
            {
                if (batch.Version >= version)
                {
                    break;
                }

                through = batch.Bid;
            }
        }

        if (through > 0)
        {
            CommitBatchesThrough(through);
        }
    }

    private TState StateBefore(int index)
    {
        for (var i = index - 1; i >= 0; i--)
        {
            if (uncommitted[i].State is { } state)
            {
                return state;
            }
        }

        return Committed;
    }

    /// <summary>Abort cascade: the states left by batches <paramref name="from"/> through <paramref name="through"/> are gone; earlier ones stay.</summary>
    public void DropBatches(long from, long through) => uncommitted.RemoveAll(v => v.Bid >= from && v.Bid <= through);

    /// <summary>An ACT committed <paramref name="state"/> (<paramref name="version"/>) here; it ran after every batch still listed had committed.</summary>
    public void CommitAct(TState state, long version)
    {
        Debug.Assert(uncommitted.Count == 0, "an ACT commits only after the batches before it have committed, and none after it has started");
        Committed = state;
        CommittedVersion = version;
    }

    // The state one completed batch left here, and how to undo its last write while nobody has read it.
    // A struct in a list, changed in place through CollectionsMarshal.AsSpan: no allocation per batch.
    private struct BatchVersion(long bid, string coordinator, TState? state, long version)
    {
        public readonly long Bid = bid;

        public readonly string Coordinator = coordinator;

        /// <summary>The state the batch left (null: it did not write here).</summary>
        public TState? State = state;

        public readonly long Version = version;
    }
}

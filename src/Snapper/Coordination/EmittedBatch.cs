using System.Collections.Immutable;

namespace Snapper.Coordination;

/// <summary>A coordinator's record of one batch it emitted and has not resolved yet.</summary>
internal sealed class EmittedBatch(long bid, long previousBid, int coordinator, ImmutableArray<ActorId> participants, ImmutableArray<long> tids, DateTimeOffset emittedAt)
{
    public long Bid { get; } = bid;

    /// <summary>The batch emitted just before this one by any coordinator: it must resolve first (commit in bid order).</summary>
    public long PreviousBid { get; } = previousBid;

    public int Coordinator { get; } = coordinator;

    public ImmutableArray<ActorId> Participants { get; } = participants;

    public ImmutableArray<long> Tids { get; } = tids;

    /// <summary>Participants that have not sent BatchComplete yet.</summary>
    public HashSet<ActorId> Pending { get; } = [.. participants];

    public BatchPhase Phase { get; set; } = BatchPhase.Emitted;

    /// <summary>When it was formed; the declaration timeout counts from here.</summary>
    public DateTimeOffset EmittedAt { get; } = emittedAt;

    /// <summary>Completed when the batch is resolved (committed or aborted); later batches wait on it.</summary>
    public TaskCompletionSource Resolved { get; } = new(TaskCreationOptions.RunContinuationsAsynchronously);

    /// <summary>
    /// Completed when an attempt to log its BatchCommit ends, written or failed: an abort cascade
    /// waits for batches that are committing, and a failed write leaves the batch for it to abort.
    /// </summary>
    public TaskCompletionSource CommitSettled { get; } = new(TaskCreationOptions.RunContinuationsAsynchronously);
}

using System.Collections.Immutable;

namespace Snapper.Coordination;

/// <summary>A coordinator's record of one batch it emitted and has not resolved yet.</summary>
internal sealed class EmittedBatch(long bid, long previousBid, string? previousCoordinator, ImmutableArray<ActorId> participants, ImmutableArray<long> tids, DateTimeOffset emittedAt)
{
    public long Bid { get; } = bid;

    /// <summary>The batch emitted just before this one by any coordinator: it resolves first (commit in bid order, §4.2.4).</summary>
    public long PreviousBid { get; } = previousBid;

    /// <summary>The coordinator that emitted <see cref="PreviousBid"/>.</summary>
    public string? PreviousCoordinator { get; } = previousCoordinator;

    public ImmutableArray<ActorId> Participants { get; } = participants;

    public ImmutableArray<long> Tids { get; } = tids;

    /// <summary>Participants that have not sent BatchComplete yet.</summary>
    public HashSet<ActorId> Pending { get; } = [.. participants];

    public BatchPhase Phase { get; set; } = BatchPhase.Emitted;

    /// <summary>When it was formed; the declaration timeout counts from here.</summary>
    public DateTimeOffset EmittedAt { get; } = emittedAt;

    /// <summary>Its predecessor has resolved without dooming it: it may commit once complete.</summary>
    public bool PredecessorSettled { get; set; }

    /// <summary>For a batch that failed here: the last bid its abort cascade takes (0 until the cascade is sealed).</summary>
    public long SealedThrough { get; set; }

    /// <summary>Its participants have been told to roll it back.</summary>
    public bool AbortStarted { get; set; }

    /// <summary>Why the whole batch failed (a log write, say), or null.</summary>
    public Exception? Failure { get; set; }

    /// <summary>Completed when the batch is resolved, saying how; later batches and ACT roots wait on it.</summary>
    public TaskCompletionSource<BatchOutcome> Resolved { get; } = new(TaskCreationOptions.RunContinuationsAsynchronously);
}

using System.Collections.Immutable;
using Snapper.Logging;
using Snapper.Protocol;

namespace Snapper.Coordination;

/// <summary>A coordinator's record of one batch it emitted and has not resolved yet.</summary>
internal sealed class EmittedBatch(long bid, long previousBid, string? previousCoordinator, ImmutableArray<ActorId> participants, ImmutableArray<long> tids, ImmutableArray<PendingPact> pacts, DateTimeOffset emittedAt)
{
    public long Bid { get; } = bid;

    /// <summary>The batch emitted just before this one by any coordinator: it resolves first (commit in bid order, §4.2.4).</summary>
    public long PreviousBid { get; } = previousBid;

    /// <summary>The coordinator that emitted <see cref="PreviousBid"/>.</summary>
    public string? PreviousCoordinator { get; } = previousCoordinator;

    public ImmutableArray<ActorId> Participants { get; } = participants;

    public ImmutableArray<long> Tids { get; } = tids;

    /// <summary>The PACTs it was formed from, in tid order (PACT <c>Bid + i</c> is <c>Pacts[i]</c>).</summary>
    public ImmutableArray<PendingPact> Pacts { get; } = pacts;

    /// <summary>What PACT <paramref name="tid"/> declared, or null if it is not one of this batch's.</summary>
    public AccessSet? DeclarationOf(long tid) => tid - Bid is >= 0 and var i && i < Pacts.Length ? Pacts[(int)i].Declared : null;

    /// <summary>PACTs of it that failed, with their causes (null until one does).</summary>
    public Dictionary<long, Exception>? PactFailures { get; set; }

    /// <summary>
    /// Aborts of single PACTs still under way (<see cref="Protocol.ISnapperParticipant.AbortPact"/>): the
    /// batch does not decide before they end, since one may yet find its writes read.
    /// </summary>
    public int PactAbortsUnderway { get; set; }

    /// <summary>The after-commit actions its participants sent with BatchComplete (null while none): logged with its BatchCommit, but for those of PACTs that failed.</summary>
    public List<AfterCommitAction>? Actions { get; set; }

    /// <summary>Set as it decides to commit: <see cref="Actions"/> but those of PACTs that failed (no PACT fails after that), logged with its BatchCommit and delivered once it resolves.</summary>
    public ImmutableArray<AfterCommitAction> OwedActions { get; set; } = [];

    /// <summary>The sub-batches sent to its participants (BatchMsgs), kept to send again to one that asks (<see cref="ICoordinator.SubBatchOf"/>).</summary>
    public ImmutableArray<(ActorId Actor, SubBatch Batch)> SubBatches { get; set; } = [];

    /// <summary><paramref name="actor"/>'s sub-batch, or null if it is not a participant.</summary>
    public SubBatch? SubBatchOf(ActorId actor)
    {
        foreach (var (participant, sub) in SubBatches)
        {
            if (participant == actor)
            {
                return sub;
            }
        }

        return null;
    }

    /// <summary>Participants that have not sent BatchComplete yet.</summary>
    public HashSet<ActorId> Pending { get; } = [.. participants];

    public BatchPhase Phase { get; set; } = BatchPhase.Emitted;

    /// <summary>When it was formed.</summary>
    public DateTimeOffset EmittedAt { get; } = emittedAt;

    /// <summary>When its last participant sent BatchComplete (null until then).</summary>
    public DateTimeOffset? CompletedAt { get; set; }

    /// <summary>
    /// The declaration timeout counts from here: its emission, or the last time it was found held
    /// up on an actor by what was ahead of it there (time it could not have run).
    /// </summary>
    public DateTimeOffset RunnableSince { get; set; } = emittedAt;

    /// <summary>Its predecessor has been decided without dooming it: it may decide to commit once complete.</summary>
    public bool PredecessorSettled { get; set; }

    /// <summary>
    /// The predecessor's bid if it was decided committed with its BatchCommit not durable yet, else 0:
    /// this batch's BatchCommit record depends on it (<see cref="Logging.BatchCommitRecord.DependsOn"/>).
    /// </summary>
    public long CommitDependency { get; set; }

    /// <summary>
    /// The lowest and highest sequence numbers, in this coordinator's log, of BatchComplete records
    /// its participants reported queued there rather than durable (0: none). Its BatchCommit is
    /// durable only if they are (<see cref="Logging.LogWriter.AppendAfter"/>).
    /// </summary>
    public long SequencedFrom { get; set; }

    /// <inheritdoc cref="SequencedFrom"/>
    public long SequencedThrough { get; set; }

    /// <summary>How its predecessor resolved, once it has; it resolves only after that.</summary>
    public TaskCompletionSource<BatchOutcome> PredecessorResolved { get; } = new(TaskCreationOptions.RunContinuationsAsynchronously);

    /// <summary>For a batch that failed here: the last bid its abort cascade takes (0 until the cascade is sealed).</summary>
    public long SealedThrough { get; set; }

    /// <summary>Its participants have been told to roll it back.</summary>
    public bool AbortStarted { get; set; }

    /// <summary>For a batch a predecessor's cascade took: the batch the cascade started from, and what was in its way (<see cref="BatchOutcome.Origin"/>).</summary>
    public AbortBlocker? CascadeOrigin { get; set; }

    /// <summary>For a batch a predecessor's cascade took, what that cascade's PACTs are told (<see cref="BatchOutcome.Cascade"/>); null for one no cascade took.</summary>
    public AbortReason? InheritedCascade { get; set; }

    /// <summary>Why the whole batch failed (a log write, say), or null.</summary>
    public Exception? Failure { get; set; }

    /// <summary>
    /// Completed when the batch is decided: committed as soon as it decides to commit (before its
    /// BatchCommit is durable), aborted when it has resolved aborted. The next batch waits on it
    /// to decide its own commit, so commit decisions are not one log write apart.
    /// </summary>
    public TaskCompletionSource<BatchOutcome> Decided { get; } = new(TaskCreationOptions.RunContinuationsAsynchronously);

    /// <summary>
    /// Completed when the batch is resolved, saying how: committed once its BatchCommit and every
    /// earlier batch's are durable and the participants were told. ACT roots, the end of an abort
    /// cascade and the next batch's acknowledgement wait on it.
    /// </summary>
    public TaskCompletionSource<BatchOutcome> Resolved { get; } = new(TaskCreationOptions.RunContinuationsAsynchronously);
}

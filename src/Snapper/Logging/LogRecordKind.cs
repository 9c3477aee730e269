namespace Snapper.Logging;

/// <summary>The kinds of log record (Snapper Fig. 7 for ACTs). The byte values are on disk: never reuse one.</summary>
internal enum LogRecordKind : byte
{
    /// <summary>Root of an ACT, before sending Prepare: the tid and its writing participants.</summary>
    CoordPrepare = 1,

    /// <summary>Participant, before voting yes: the tid and the participant's new state.</summary>
    Prepare = 2,

    /// <summary>Root, before sending Commit: the decision.</summary>
    CoordCommit = 3,

    /// <summary>Participant, after applying the commit; carries the state for a one-phase commit. A checkpoint writes an actor's committed state as one.</summary>
    Commit = 4,

    /// <summary>PACT coordinator, as it sends BatchMsg (Snapper Fig. 6 writes it before): the batch and its participating actors.</summary>
    BatchInfo = 5,

    /// <summary>PACT participant, before sending BatchComplete: the state the batch left (none is logged for a sub-batch that only read).</summary>
    BatchComplete = 6,

    /// <summary>PACT coordinator, before sending BatchCommit: the batch is committed.</summary>
    BatchCommit = 7,

    /// <summary>Coordinator holding the token, before handing out tids above the last reservation: how far tids may go.</summary>
    TidReservation = 8,

    /// <summary>A silo's logger, as it seals its log for a checkpoint round: the records before it are the round's to truncate.</summary>
    CheckpointSeal = 9,

    /// <summary>A checkpoint, for the CoordCommit and BatchCommit records it truncates: the ACTs and batches that committed.</summary>
    CommittedDecisions = 10,

    /// <summary>The decider of a transaction, just before its decision (or a checkpoint, restating what is still owed): its after-commit actions.</summary>
    AfterCommit = 11,

    /// <summary>A silo's outbox, once handlers took them: after-commit actions no longer owed.</summary>
    Delivered = 12,
}

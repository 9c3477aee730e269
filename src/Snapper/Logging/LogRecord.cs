using System.Collections.Immutable;

namespace Snapper.Logging;

/// <summary>One write-ahead log record. Encoded by <see cref="LogRecordCodec"/>.</summary>
public abstract record LogRecord(long Tid)
{
    /// <summary>What the record says.</summary>
    public abstract LogRecordKind Kind { get; }
}

/// <summary>Written by an ACT's root before Prepare is sent: who must learn the outcome.</summary>
public sealed record CoordPrepareRecord(long Tid, ImmutableArray<ActorId> Participants) : LogRecord(Tid)
{
    /// <inheritdoc />
    public override LogRecordKind Kind => LogRecordKind.CoordPrepare;
}

/// <summary>Written by a writing participant before it votes yes: the state it will commit.</summary>
public sealed record PrepareRecord(long Tid, ActorId Actor, ActorId Coordinator, ReadOnlyMemory<byte> State) : LogRecord(Tid)
{
    /// <inheritdoc />
    public override LogRecordKind Kind => LogRecordKind.Prepare;
}

/// <summary>Written by an ACT's root once every participant voted yes: the transaction is committed.</summary>
public sealed record CoordCommitRecord(long Tid) : LogRecord(Tid)
{
    /// <inheritdoc />
    public override LogRecordKind Kind => LogRecordKind.CoordCommit;
}

/// <summary>
/// Written by a participant once it committed. <see cref="State"/> is set for a one-phase commit
/// (a single writer), where no Prepare record holds it; it is empty after a two-phase commit.
/// </summary>
public sealed record CommitRecord(long Tid, ActorId Actor, ReadOnlyMemory<byte> State) : LogRecord(Tid)
{
    /// <inheritdoc />
    public override LogRecordKind Kind => LogRecordKind.Commit;
}

/// <summary>Written by a PACT coordinator before it emits a batch: who takes part.</summary>
public sealed record BatchInfoRecord(long Tid, int Coordinator, ImmutableArray<ActorId> Participants) : LogRecord(Tid)
{
    /// <summary>The batch id (the tid of its first PACT).</summary>
    public long Bid => Tid;

    /// <inheritdoc />
    public override LogRecordKind Kind => LogRecordKind.BatchInfo;
}

/// <summary>Written by an actor when a batch completed on it, before BatchComplete is sent.</summary>
public sealed record BatchCompleteRecord(long Tid, ActorId Actor, int Coordinator, ReadOnlyMemory<byte> State) : LogRecord(Tid)
{
    /// <summary>The batch id.</summary>
    public long Bid => Tid;

    /// <inheritdoc />
    public override LogRecordKind Kind => LogRecordKind.BatchComplete;
}

/// <summary>Written by a PACT coordinator once every participant completed the batch and its predecessor committed.</summary>
public sealed record BatchCommitRecord(long Tid) : LogRecord(Tid)
{
    /// <summary>The batch id.</summary>
    public long Bid => Tid;

    /// <inheritdoc />
    public override LogRecordKind Kind => LogRecordKind.BatchCommit;
}

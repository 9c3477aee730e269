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

namespace Snapper.Logging;

/// <summary>
/// Written by a participant once it committed. <see cref="State"/> is set for a one-phase commit
/// (a single writer), where no Prepare record holds it; it is empty after a two-phase commit.
/// </summary>
internal sealed record CommitRecord(long Tid, ActorId Actor, ReadOnlyMemory<byte> State) : LogRecord(Tid)
{
    /// <summary>
    /// The version of <see cref="State"/> on its actor: one more than the version of the state it was
    /// built from. Commits on one actor are serial, so of
    /// an actor's committed states the one with the highest version is the last, whichever silo's
    /// log holds it.
    /// </summary>
    public long Version { get; init; }

    /// <summary>
    /// True if <see cref="State"/> is the change from version <c>Version - 1</c> (an
    /// <see cref="IDeltaState{TSelf, TDelta}"/> state's), false if it is the whole state.
    /// </summary>
    public bool Delta { get; init; }

    /// <inheritdoc />
    public override LogRecordKind Kind => LogRecordKind.Commit;
}

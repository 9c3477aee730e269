namespace Snapper.Logging;

/// <summary>Written by an actor when a batch completed on it, before BatchComplete is sent.</summary>
internal sealed record BatchCompleteRecord(long Tid, ActorId Actor, string Coordinator, ReadOnlyMemory<byte> State) : LogRecord(Tid)
{
    /// <summary>The batch id.</summary>
    public long Bid => Tid;

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
    public override LogRecordKind Kind => LogRecordKind.BatchComplete;
}

namespace Snapper.Logging;

/// <summary>Written by a writing participant before it votes yes: the state it will commit.</summary>
public sealed record PrepareRecord(long Tid, ActorId Actor, ActorId Coordinator, ReadOnlyMemory<byte> State) : LogRecord(Tid)
{
    /// <inheritdoc />
    public override LogRecordKind Kind => LogRecordKind.Prepare;
}

namespace Snapper.Logging;

/// <summary>Written by an actor when a batch completed on it, before BatchComplete is sent.</summary>
public sealed record BatchCompleteRecord(long Tid, ActorId Actor, string Coordinator, ReadOnlyMemory<byte> State) : LogRecord(Tid)
{
    /// <summary>The batch id.</summary>
    public long Bid => Tid;

    /// <inheritdoc />
    public override LogRecordKind Kind => LogRecordKind.BatchComplete;
}

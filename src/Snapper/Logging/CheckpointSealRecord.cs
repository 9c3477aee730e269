namespace Snapper.Logging;

/// <summary>
/// Written by a silo's logger as the first record after it sealed its log for checkpoint round
/// <see cref="LogRecord.Tid"/> (docs/architecture.md, "Checkpoints"): the records before it are the
/// ones that round's checkpoint covers and may truncate. Recovery reads nothing from it.
/// </summary>
internal sealed record CheckpointSealRecord(long Tid) : LogRecord(Tid)
{
    /// <inheritdoc />
    public override LogRecordKind Kind => LogRecordKind.CheckpointSeal;
}

namespace Snapper.Logging;

/// <summary>
/// Written by the coordinator holding the token before it hands out a tid above the last
/// reservation: no tid beyond <see cref="LogRecord.Tid"/> is given out until a later reservation is
/// durable. Recovery resumes past the highest tid in the logs, and this record is what makes that
/// cover every tid a caller may have seen, including those of PACTs and ACTs that left no record of
/// their own (their batch's BatchInfo was not durable yet, or they only read, or they aborted).
/// </summary>
internal sealed record TidReservationRecord(long Tid) : LogRecord(Tid)
{
    /// <inheritdoc />
    public override LogRecordKind Kind => LogRecordKind.TidReservation;
}

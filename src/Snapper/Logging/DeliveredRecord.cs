using System.Collections.Immutable;

namespace Snapper.Logging;

/// <summary>
/// Written by a silo's outbox once handlers took these after-commit actions: they are no longer
/// owed. Appended without waiting: if it is lost, the actions are delivered again (at least once),
/// and the handler drops the repeat by id. <see cref="LogRecord.Tid"/> is the highest tid among them.
/// </summary>
internal sealed record DeliveredRecord(long Tid, ImmutableArray<AfterCommitId> Actions) : LogRecord(Tid)
{
    /// <inheritdoc />
    public override LogRecordKind Kind => LogRecordKind.Delivered;
}

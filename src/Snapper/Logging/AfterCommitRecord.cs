using System.Collections.Immutable;

namespace Snapper.Logging;

/// <summary>
/// The after-commit actions of one transaction (the transactional outbox), written by its decider
/// into the log it writes its decision to, just before the decision: an ACT's root before
/// CoordCommit, a PACT coordinator before BatchCommit (<see cref="LogRecord.Tid"/> is then the bid).
/// The decision is appended after it (<see cref="LogWriter.AppendBefore"/>), so it cannot be durable
/// without it, and it counts only if the decision does: the actions
/// are owed exactly when the transaction committed. A checkpoint restates the actions still owed
/// in the same form, with the decision in its <see cref="CommittedDecisionsRecord"/>.
/// </summary>
internal sealed record AfterCommitRecord(long Tid, bool Batch, ImmutableArray<AfterCommitAction> Actions) : LogRecord(Tid)
{
    /// <inheritdoc />
    public override LogRecordKind Kind => LogRecordKind.AfterCommit;
}

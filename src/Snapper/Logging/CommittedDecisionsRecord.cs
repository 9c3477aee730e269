using System.Collections.Immutable;

namespace Snapper.Logging;

/// <summary>
/// Written by a checkpoint (round <see cref="LogRecord.Tid"/>) in place of the CoordCommit and
/// BatchCommit records it truncates: these ACTs and batches committed, with nothing left to depend
/// on. Records the checkpoint keeps (a Prepare whose CoordCommit was truncated, a CoordCommit that
/// depends on such an ACT, a BatchCommit whose predecessor's record was truncated) count by it.
/// </summary>
internal sealed record CommittedDecisionsRecord(long Tid) : LogRecord(Tid)
{
    /// <summary>ACTs that committed.</summary>
    public ImmutableArray<long> Acts { get; init; } = [];

    /// <summary>PACT batches that committed.</summary>
    public ImmutableArray<long> Batches { get; init; } = [];

    /// <inheritdoc />
    public override LogRecordKind Kind => LogRecordKind.CommittedDecisions;
}

using System.Collections.Immutable;

namespace Snapper.Logging;

/// <summary>
/// Written by an ACT's root once every participant voted yes: the transaction is committed —
/// provided every ACT in <see cref="DependsOn"/> committed too. Under early lock release an ACT
/// logs its commit as soon as its dependencies' commits are ordered, not yet durable, so recovery
/// counts it committed only if their CoordCommits are in the log as well (Thorp §III.F).
/// </summary>
internal sealed record CoordCommitRecord(long Tid) : LogRecord(Tid)
{
    /// <summary>The ACTs whose prepared states this one read (its commit dependencies); empty for most.</summary>
    public ImmutableArray<long> DependsOn { get; init; } = [];

    /// <inheritdoc />
    public override LogRecordKind Kind => LogRecordKind.CoordCommit;
}

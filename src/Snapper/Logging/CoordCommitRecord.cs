namespace Snapper.Logging;

/// <summary>Written by an ACT's root once every participant voted yes: the transaction is committed.</summary>
public sealed record CoordCommitRecord(long Tid) : LogRecord(Tid)
{
    /// <inheritdoc />
    public override LogRecordKind Kind => LogRecordKind.CoordCommit;
}

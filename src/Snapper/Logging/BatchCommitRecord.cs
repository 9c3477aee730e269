namespace Snapper.Logging;

/// <summary>Written by a PACT coordinator once every participant completed the batch and its predecessor committed.</summary>
internal sealed record BatchCommitRecord(long Tid) : LogRecord(Tid)
{
    /// <summary>The batch id.</summary>
    public long Bid => Tid;

    /// <inheritdoc />
    public override LogRecordKind Kind => LogRecordKind.BatchCommit;
}

using Snapper.Coordination;

namespace Snapper.Logging;

/// <summary>
/// Written by a PACT coordinator once every participant completed the batch and its predecessor
/// was decided: the batch is committed — provided the batch in <see cref="DependsOn"/> committed too.
/// </summary>
/// <remarks>
/// Batches commit in bid order, but a coordinator logs its BatchCommit as soon as the previous
/// batch has decided to commit, not once that decision is durable, so the BatchCommits of many
/// batches share group commits instead of following one another (the same idea as early lock
/// release's CoordCommit, Thorp §III.F). The previous batch's record may be in another logger and
/// never reach the disk; so recovery counts this record only if <see cref="DependsOn"/>'s counts.
/// </remarks>
internal sealed record BatchCommitRecord(long Tid) : LogRecord(Tid)
{
    /// <summary>The batch id.</summary>
    public long Bid => Tid;

    /// <summary>
    /// The previous batch, if it was decided committed when this one decided (0 if it aborted, or
    /// was already durable, or there was none): this record counts only if that batch's does.
    /// </summary>
    public long DependsOn { get; init; }

    /// <inheritdoc />
    public override LogRecordKind Kind => LogRecordKind.BatchCommit;
}

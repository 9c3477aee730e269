namespace Snapper.Logging;

/// <summary>
/// Written by a participant once it committed. <see cref="State"/> is set for a one-phase commit
/// (a single writer), where no Prepare record holds it; it is empty after a two-phase commit.
/// </summary>
public sealed record CommitRecord(long Tid, ActorId Actor, ReadOnlyMemory<byte> State) : LogRecord(Tid)
{
    /// <inheritdoc />
    public override LogRecordKind Kind => LogRecordKind.Commit;
}

using System.Collections.Immutable;

namespace Snapper.Logging;

/// <summary>Written by an ACT's root before Prepare is sent: who must learn the outcome.</summary>
internal sealed record CoordPrepareRecord(long Tid, ImmutableArray<ActorId> Participants) : LogRecord(Tid)
{
    /// <inheritdoc />
    public override LogRecordKind Kind => LogRecordKind.CoordPrepare;
}

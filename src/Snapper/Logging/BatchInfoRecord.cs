using System.Collections.Immutable;

namespace Snapper.Logging;

/// <summary>Written by a PACT coordinator as it emits a batch: who takes part.</summary>
internal sealed record BatchInfoRecord(long Tid, string Coordinator, ImmutableArray<ActorId> Participants) : LogRecord(Tid)
{
    /// <summary>The batch id (the tid of its first PACT).</summary>
    public long Bid => Tid;

    /// <inheritdoc />
    public override LogRecordKind Kind => LogRecordKind.BatchInfo;
}

namespace Snapper.Protocol;

/// <summary>A PACT, its batch and the coordinator that emitted the batch (which aborts it if need be).</summary>
[GenerateSerializer, Immutable]
internal readonly record struct PactRef([property: Id(0)] long Tid, [property: Id(1)] long Bid, [property: Id(2)] string Coordinator)
{
    /// <summary>Why this PACT aborts: it read the write of PACT <paramref name="writer"/> on <paramref name="actor"/>, which aborted.</summary>
    /// <remarks>
    /// A writer that gave up a late call (<see cref="AbortReason.LateCall"/>) passes that reason on:
    /// the reader is one more victim of the late call, and <c>RunPact</c> runs it again as it does
    /// the writer. Any other writer's abort is a <see cref="AbortReason.Cascading"/> one here.
    /// </remarks>
    public TransactionAbortedException ReadAbortedWrite(long writer, ActorId actor, Exception writerAbort) =>
        writerAbort is TransactionAbortedException { Reason: AbortReason.LateCall }
            ? new(AbortReason.LateCall, $"it read the write of PACT {writer}, which gave up a late call") { Tid = Tid, Blocker = AbortBlocker.Transaction(actor, writer) }
            : new(AbortReason.Cascading, $"it read the write of PACT {writer}, which aborted") { Tid = Tid, Blocker = AbortBlocker.Transaction(actor, writer) };
}

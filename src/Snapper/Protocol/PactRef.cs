namespace Snapper.Protocol;

/// <summary>A PACT, its batch and the coordinator that emitted the batch (which aborts it if need be).</summary>
[GenerateSerializer, Immutable]
internal readonly record struct PactRef([property: Id(0)] long Tid, [property: Id(1)] long Bid, [property: Id(2)] string Coordinator)
{
    /// <summary>Why this PACT aborts: it read the write of PACT <paramref name="writer"/> on <paramref name="actor"/>, which aborted.</summary>
    public TransactionAbortedException ReadAbortedWrite(long writer, ActorId actor) =>
        new(AbortReason.Cascading, $"it read the write of PACT {writer}, which aborted") { Tid = Tid, Blocker = AbortBlocker.Transaction(actor, writer) };
}

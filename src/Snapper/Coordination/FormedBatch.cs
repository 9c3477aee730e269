using System.Collections.Immutable;
using Snapper.Protocol;

namespace Snapper.Coordination;

/// <summary>A batch just formed under the token, ready to be emitted.</summary>
internal sealed record FormedBatch(
    EmittedBatch Batch,
    ImmutableArray<PendingPact> Pacts,
    ImmutableArray<TxnContext> Contexts,
    ImmutableArray<(ActorId Actor, SubBatch Batch)> SubBatches);

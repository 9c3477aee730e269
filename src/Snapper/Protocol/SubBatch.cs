using System.Collections.Immutable;

namespace Snapper.Protocol;

/// <summary>
/// BatchMsg, coordinator → actor, one-way (Snapper §4.2.2): the part of a batch that one actor
/// runs, in tid order, and the previous batch on this actor. Sent alongside the coordinator's
/// BatchInfo write, not after it. <see cref="PrevBid"/> is 0 when no earlier batch on this actor is
/// still unresolved, so the actor need not wait for anything. <see cref="Coordinator"/> is the key of
/// the coordinator that emitted it, which BatchComplete goes to.
/// </summary>
[GenerateSerializer, Immutable]
internal sealed record SubBatch(long Bid, long PrevBid, string Coordinator, ImmutableArray<(long Tid, int Calls)> Pacts);

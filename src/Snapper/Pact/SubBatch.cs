using System.Collections.Immutable;

namespace Snapper.Pact;

/// <summary>
/// BatchMsg, coordinator → actor, one-way (Snapper §4.2.2): the part of a batch that one actor
/// runs, in tid order, and the previous batch on this actor. Sent only after the coordinator's
/// BatchInfo record is durable. <see cref="PrevBid"/> is 0 when no earlier batch on this actor is
/// still uncommitted, so the actor need not wait for anything.
/// </summary>
[GenerateSerializer, Immutable]
internal sealed record SubBatch(long Bid, long PrevBid, int Coordinator, ImmutableArray<(long Tid, int Calls)> Pacts);

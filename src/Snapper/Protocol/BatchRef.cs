namespace Snapper.Protocol;

/// <summary>A PACT batch and the coordinator that emitted it, which knows how it ended.</summary>
[GenerateSerializer, Immutable]
internal readonly record struct BatchRef([property: Id(0)] long Bid, [property: Id(1)] string Coordinator);

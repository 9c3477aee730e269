namespace Snapper.Recovery;

/// <summary>An actor's last committed state, serialized, and its version on the actor.</summary>
[GenerateSerializer, Immutable]
internal readonly record struct CommittedState([property: Id(0)] long Version, [property: Id(1)] ReadOnlyMemory<byte> State);

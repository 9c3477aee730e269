namespace Snapper.AtRest;

/// <summary>
/// A committed state of <paramref name="Actor"/> at rest: the serialized state and its version on
/// the actor (the count of its committed writes; two entries of one version hold the same state).
/// </summary>
public readonly record struct StoredState(ActorId Actor, long Version, ReadOnlyMemory<byte> State);

namespace Snapper.AtRest;

/// <summary>
/// A committed state of <paramref name="Actor"/> at rest: the serialized state and its version on
/// the actor (the count of its committed writes: one version is one state).
/// </summary>
public readonly record struct StoredState(ActorId Actor, long Version, ReadOnlyMemory<byte> State)
{
    /// <summary>
    /// Orders writes of one version: what rests with a state (for Snapper, the watermarks of the
    /// batches an actor saw and the outcomes still asked for) grows while the actor only reads, so
    /// the writer that knew more gives a higher sequence (Snapper: the activation's place in the
    /// actor's chain of activations). 0 by default.
    /// </summary>
    public long Sequence { get; init; }
}

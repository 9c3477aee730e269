namespace Snapper.Protocol;

/// <summary>
/// A write an actor prepared for an ACT whose root had not decided yet when the actor's activation
/// went (deactivated or migrated): handed to the next activation with the committed state, which
/// settles it with the root before it serves (docs/architecture.md, "An activation goes").
/// </summary>
/// <param name="Tid">The ACT.</param>
/// <param name="Root">Its root, which decides it.</param>
/// <param name="Version">The version the write becomes on the actor if the ACT commits.</param>
/// <param name="State">The written state, serialized: whole, or with <paramref name="Delta"/> the change from the committed state.</param>
/// <param name="Delta">True if <paramref name="State"/> is a delta.</param>
[GenerateSerializer, Immutable]
internal sealed record PreparedWrite(
    [property: Id(0)] long Tid,
    [property: Id(1)] ActorId Root,
    [property: Id(2)] long Version,
    [property: Id(3)] ReadOnlyMemory<byte> State,
    [property: Id(4)] bool Delta);

namespace Snapper.Protocol;

/// <summary>
/// How an ACT rooted on an actor ended, kept for those who may still ask (<see cref="Act.ActRoots"/>)
/// until <paramref name="Until"/>; handed to the actor's next activation when this one goes.
/// </summary>
[GenerateSerializer, Immutable]
internal readonly record struct RememberedOutcome(
    [property: Id(0)] long Tid,
    [property: Id(1)] bool Decided,
    [property: Id(2)] bool Durable,
    [property: Id(3)] DateTimeOffset Until);

namespace Snapper.Protocol;

/// <summary>
/// One actor's part in an ACT, as its execution info carries it to the root: its
/// <see cref="ParticipantRole"/> (what two-phase commit asks of it) and how many calls of the ACT it
/// took (what a promoted run declares on it), and which activation of the actor it took them in
/// (<see cref="Incarnation"/>; 0 where unknown: a caller that noted a call it gave up on, a
/// reconnaissance).
/// </summary>
[GenerateSerializer, Immutable]
internal readonly record struct Participation([property: Id(0)] ParticipantRole Role, [property: Id(1)] int Calls, [property: Id(2)] int Incarnation = 0);

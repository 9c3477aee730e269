namespace Snapper.Protocol;

/// <summary>
/// One actor's part in an ACT, as its execution info carries it to the root: its
/// <see cref="ParticipantRole"/> (what two-phase commit asks of it) and how many calls of the ACT it
/// took (what a promoted run declares on it).
/// </summary>
[GenerateSerializer, Immutable]
internal readonly record struct Participation([property: Id(0)] ParticipantRole Role, [property: Id(1)] int Calls);

namespace Snapper.Protocol;

/// <summary>
/// A commit dependency (Thorp §III.E): the ACT <see cref="Tid"/>, whose prepared state another ACT
/// read under early lock release. Named by tid and root actor, not by a reference to the running
/// transaction, so it can travel inside execution info to a root on another silo, which asks the
/// dependency's root for its outcome. <see cref="RootSilo"/> is where that root ran (null: not
/// known), which answers for it while its activation may be going (<see cref="Act.ActOutcomes"/>).
/// </summary>
[GenerateSerializer, Immutable]
internal readonly record struct ActDependency([property: Id(0)] long Tid, [property: Id(1)] ActorId Root, [property: Id(2)] SiloAddress? RootSilo = null);

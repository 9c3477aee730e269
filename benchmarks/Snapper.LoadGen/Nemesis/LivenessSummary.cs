namespace Snapper.LoadGen.Nemesis;

/// <summary>
/// The read of every actor after the nemesis stopped (<see cref="LivenessProbe"/>): an actor the
/// faults left stuck answers late or not at all.
/// </summary>
/// <param name="Actors">Actors read.</param>
/// <param name="SlowestMs">The slowest answer, in milliseconds (of those that answered).</param>
/// <param name="OverOneSecond">Actors that answered, but after more than a second.</param>
/// <param name="Failed">Actors whose read failed or got no answer within <see cref="LivenessProbe.Patience"/>.</param>
/// <param name="FirstFailure">Why the first failed read failed, or null.</param>
public sealed record LivenessSummary(int Actors, double SlowestMs, int OverOneSecond, int Failed, string? FirstFailure);

using Orleans.Concurrency;
using Snapper.Grains;

namespace Snapper.Failover;

/// <summary>Does this silo's part of a failover (<see cref="ISiloFailover"/>) with its loggers, its <see cref="DepartedSilos"/> and its actors.</summary>
[Reentrant]
[SiloBoundPlacement]
internal sealed class SiloFailover(ActiveActors active, ActorResolver actors, DepartedSilos departed) : SiloBoundGrain, ISiloFailover
{
    /// <summary>The key of silo <paramref name="silo"/>'s failover grain.</summary>
    public static string KeyOf(string silo) => $"{silo}/failover";

    public Task<long> Evaluate(string silo, string incarnation) => departed.Evaluate(silo, incarnation);

    public Task Seal(string silo, string incarnation, long through)
    {
        departed.Seal(silo, incarnation, through);
        return Task.CompletedTask;
    }

    public Task Sweep(string silo) =>
        Task.WhenAll(active.Ids.ToArray().Select(actor => actors.Participant(actor).ResolveDeparted(silo)));
}

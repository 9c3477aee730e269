using Orleans.Concurrency;
using Snapper.Coordination;

namespace Snapper.Failover;

/// <summary>Does this silo's part of a failover (<see cref="ISiloFailover"/>) with its loggers, its <see cref="DepartedSilos"/> and its actors.</summary>
[Reentrant]
[SiloBoundPlacement]
internal sealed class SiloFailover(SnapperRuntime runtime, DepartedSilos departed) : Grain, ISiloFailover
{
    /// <summary>The key of silo <paramref name="silo"/>'s failover grain.</summary>
    public static string KeyOf(string silo) => $"{silo}/failover";

    /// <inheritdoc />
    public override async Task OnActivateAsync(CancellationToken cancellationToken)
    {
        await Task.Yield(); // never complete activation synchronously: see TransactionalActor.OnActivateAsync
        await base.OnActivateAsync(cancellationToken);
    }

    public Task<long> Evaluate(string silo) => departed.Evaluate(silo);

    public Task Seal(string silo, string incarnation, long through)
    {
        departed.Seal(silo, incarnation, through);
        return Task.CompletedTask;
    }

    public Task Sweep(string silo) =>
        Task.WhenAll(runtime.Activations.Keys.ToArray().Select(actor => runtime.Resolver.Participant(actor).ResolveDeparted(silo)));
}

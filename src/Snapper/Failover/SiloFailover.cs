using Orleans.Concurrency;
using System.Collections.Immutable;
using Snapper.Grains;
using Snapper.Logging;
using Snapper.Outbox;
using Snapper.Recovery;

namespace Snapper.Failover;

/// <summary>Does this silo's part of a failover (<see cref="ISiloFailover"/>) with its loggers, its <see cref="DepartedSilos"/> and its actors.</summary>
[Reentrant]
[SiloBoundPlacement]
internal sealed class SiloFailover(ActiveActors active, ActorResolver actors, DepartedSilos departed, ILogStorage storage, AfterCommitOutbox outbox) : SiloBoundGrain, ISiloFailover
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

    public async Task DeliverOwed(ImmutableArray<string> alive)
    {
        // On the thread pool: reading every log is CPU work that must not hold this grain's turn.
        var (evaluation, _, _) = await Task.Run(() => LogEvaluation.ReadAsync(storage, CancellationToken.None));
        var orphaned = evaluation.Owed
            .Where(o => o.Log is { } log && !alive.Any(silo => LogWriterPool.IsLogOf(log, silo)))
            .Select(o => o.Action)
            .ToList();
        outbox.Deliver(orphaned);
    }
}

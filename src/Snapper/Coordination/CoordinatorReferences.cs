using System.Collections.Concurrent;
using Microsoft.Extensions.DependencyInjection;
using Snapper.Failover;
using Snapper.Protocol;

namespace Snapper.Coordination;

/// <summary>
/// Grain references to coordinators, made once per key: making a reference builds a proxy, which
/// costs more than the one-way message it carries (BatchComplete, the token). One per process.
/// </summary>
internal sealed class CoordinatorReferences(IGrainFactory grains, IServiceProvider services)
{
    private static readonly TimeSpan Retry = TimeSpan.FromMilliseconds(100);
    private readonly ConcurrentDictionary<string, ICoordinator> references = new(StringComparer.Ordinal);
    private readonly Lazy<DepartedSilos?> departed = new(services.GetService<DepartedSilos>); // none on a client

    public ICoordinator Get(string key) =>
        references.TryGetValue(key, out var known) ? known : references.GetOrAdd(key, grains.GetGrain<ICoordinator>(key));

    /// <summary>
    /// True if batch <paramref name="bid"/> of <paramref name="coordinator"/> was handed out before a
    /// failover of its silo sealed: the failover decided it from the logs, and neither a message of
    /// the dead incarnation that arrives late nor a coordinator of the same name that came back since
    /// may decide it again.
    /// </summary>
    public bool DecidedByFailover(string coordinator, long bid) =>
        departed.Value is { } failover && failover.SealedBefore(CoordinatorKey.SiloOf(coordinator), bid);

    /// <summary>
    /// True if <paramref name="coordinator"/>'s silo is an active member and has not departed (always
    /// on a client): a question that may go unanswered is worth asking only then.
    /// </summary>
    public bool IsActive(string coordinator) =>
        departed.Value is not { } failover || (failover.IsActive(CoordinatorKey.SiloOf(coordinator)) && !failover.IsDeparted(CoordinatorKey.SiloOf(coordinator)));

    /// <summary>Completes once batch <paramref name="bid"/> of coordinator <paramref name="coordinator"/> has resolved, saying how.</summary>
    public Task<BatchOutcome> WaitResolved(string coordinator, long bid) => Ask(coordinator, bid, static (c, b) => c.WaitResolved(b));

    /// <summary>Completes once batch <paramref name="bid"/> of coordinator <paramref name="coordinator"/> has been decided (<see cref="ICoordinator.WaitDecided"/>).</summary>
    public Task<BatchOutcome> WaitDecided(string coordinator, long bid) => Ask(coordinator, bid, static (c, b) => c.WaitDecided(b));

    // A coordinator whose silo departed cannot answer: the failover does, from the logs, once it is
    // sealed; for a batch from before the seal, even once a silo of that name is back. One whose
    // silo is failing or stopping but not declared dead yet is asked again until it is.
    private async Task<BatchOutcome> Ask(string coordinator, long bid, Func<ICoordinator, long, Task<BatchOutcome>> question)
    {
        var silo = CoordinatorKey.SiloOf(coordinator);
        while (true)
        {
            if (departed.Value is { } failover && (failover.IsDeparted(silo) || failover.SealedBefore(silo, bid)))
            {
                return await failover.BatchOutcome(coordinator, bid);
            }

            try
            {
                return await question(Get(coordinator), bid);
            }
            catch (TimeoutException)
            {
                // A long chain of batches can outlast one response timeout: ask again.
            }
            catch (Exception e) when (departed.Value is { } known && (e is SiloUnavailableException or CoordinatorStoppingException || !known.IsActive(silo)))
            {
                await Task.Delay(Retry);
            }
        }
    }
}

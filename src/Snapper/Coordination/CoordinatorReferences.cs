using System.Collections.Concurrent;

namespace Snapper.Coordination;

/// <summary>
/// Grain references to coordinators, made once per key: making a reference builds a proxy, which
/// costs more than the one-way message it carries (BatchComplete, the token). One per process.
/// </summary>
internal sealed class CoordinatorReferences(IGrainFactory grains)
{
    private readonly ConcurrentDictionary<string, ICoordinator> references = new(StringComparer.Ordinal);

    public ICoordinator Get(string key) =>
        references.TryGetValue(key, out var known) ? known : references.GetOrAdd(key, grains.GetGrain<ICoordinator>(key));

    /// <summary>Completes once batch <paramref name="bid"/> of coordinator <paramref name="coordinator"/> has resolved, saying how.</summary>
    public Task<BatchOutcome> WaitResolved(string coordinator, long bid) => Ask(coordinator, bid, static (c, b) => c.WaitResolved(b));

    /// <summary>Completes once batch <paramref name="bid"/> of coordinator <paramref name="coordinator"/> has been decided (<see cref="ICoordinator.WaitDecided"/>).</summary>
    public Task<BatchOutcome> WaitDecided(string coordinator, long bid) => Ask(coordinator, bid, static (c, b) => c.WaitDecided(b));

    private async Task<BatchOutcome> Ask(string coordinator, long bid, Func<ICoordinator, long, Task<BatchOutcome>> question)
    {
        while (true)
        {
            try
            {
                return await question(Get(coordinator), bid);
            }
            catch (TimeoutException)
            {
                // A long chain of batches can outlast one response timeout: ask again.
            }
        }
    }
}

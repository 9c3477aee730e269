using System.Collections.Concurrent;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;
using Snapper.Act;
using Snapper.Coordination;
using Snapper.Diagnostics;
using Snapper.Grains;
using Snapper.Hosting;
using Snapper.Logging;
using Snapper.Recovery;
using Snapper.Serialization;

namespace Snapper;

/// <summary>The silo's Snapper services, handed to each transactional actor when it is activated.</summary>
internal sealed class SnapperRuntime(
    IOptions<SnapperOptions> options,
    IGrainFactory grains,
    ActorResolver resolver,
    LoggerPool loggers,
    ActCommitCoordinator commit,
    IStateSerializer serializer,
    RecoveredState recovered,
    SnapperMetrics metrics,
    TimeProvider clock,
    ILoggerFactory loggerFactory)
{
    public SnapperOptions Options { get; } = options.Value;

    /// <summary>ActorId → grain references.</summary>
    public ActorResolver Resolver { get; } = resolver;

    /// <summary>The transactional actors active on this silo, by id (for diagnostics and tests).</summary>
    public ConcurrentDictionary<ActorId, object> Activations { get; } = new();

    public LoggerPool Loggers { get; } = loggers;

    public ActCommitCoordinator Commit { get; } = commit;

    public IStateSerializer Serializer { get; } = serializer;

    public RecoveredState Recovered { get; } = recovered;

    public SnapperMetrics Metrics { get; } = metrics;

    public TimeProvider Clock { get; } = clock;

    /// <summary>Where the actors' warnings go.</summary>
    public ILogger Diagnostics { get; } = loggerFactory.CreateLogger("Snapper.Actor");

    /// <summary>The coordinator grain with key <paramref name="key"/> (a batch's, from its sub-batch or context).</summary>
    public ICoordinator Coordinator(string key) => grains.GetGrain<ICoordinator>(key);

    /// <summary>Completes once batch <paramref name="bid"/> of coordinator <paramref name="coordinator"/> has resolved.</summary>
    public async Task<BatchOutcome> BatchOutcome(long bid, string coordinator)
    {
        while (true)
        {
            try
            {
                return await Coordinator(coordinator).WaitResolved(bid);
            }
            catch (TimeoutException)
            {
                // A long chain of batches can outlast one response timeout: ask again.
            }
        }
    }
}

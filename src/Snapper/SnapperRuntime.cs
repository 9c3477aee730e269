using Microsoft.Extensions.Options;
using Snapper.Act;
using System.Collections.Concurrent;
using Snapper.Grains;
using Snapper.Coordination;
using Snapper.Diagnostics;
using Snapper.Hosting;
using Snapper.Logging;
using Snapper.Recovery;
using Snapper.Serialization;

namespace Snapper;

/// <summary>The silo's Snapper services, handed to each transactional actor when it is activated.</summary>
internal sealed class SnapperRuntime(
    IOptions<SnapperOptions> options,
    ActorResolver resolver,
    TidSource tids,
    ActiveTransactions active,
    LoggerPool loggers,
    ActCommitCoordinator commit,
    PactRing ring,
    IStateSerializer serializer,
    RecoveredState recovered,
    SnapperMetrics metrics,
    TimeProvider clock)
{
    public SnapperOptions Options { get; } = options.Value;

    /// <summary>ActorId → grain references.</summary>
    public ActorResolver Resolver { get; } = resolver;

    /// <summary>The transactional actors active on this silo, by id (for diagnostics and tests).</summary>
    public ConcurrentDictionary<ActorId, object> Activations { get; } = new();

    public TidSource Tids { get; } = tids;

    public ActiveTransactions Active { get; } = active;

    public LoggerPool Loggers { get; } = loggers;

    public ActCommitCoordinator Commit { get; } = commit;

    public PactRing Ring { get; } = ring;

    public IStateSerializer Serializer { get; } = serializer;

    public RecoveredState Recovered { get; } = recovered;

    public SnapperMetrics Metrics { get; } = metrics;

    public TimeProvider Clock { get; } = clock;
}

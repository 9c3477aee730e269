using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;
using Snapper.Configuration;
using Snapper.Diagnostics;
using Snapper.Grains;
using Snapper.Logging;
using Snapper.Outbox;
using Snapper.Serialization;

namespace Snapper.State;

/// <summary>The silo's services both engines of an actor use; each engine's own add what only it needs.</summary>
internal abstract class ActorServices(
    IOptions<SnapperOptions> options,
    ActorResolver resolver,
    LogWriterPool logs,
    IStateSerializer serializer,
    SnapperMetrics metrics,
    TimeProvider clock,
    AfterCommitHandlers afterCommit,
    ILoggerFactory loggerFactory)
{
    public SnapperOptions Options { get; } = options.Value;

    /// <summary>ActorId → grain references.</summary>
    public ActorResolver Resolver { get; } = resolver;

    public LogWriterPool Loggers { get; } = logs;

    public IStateSerializer Serializer { get; } = serializer;

    public SnapperMetrics Metrics { get; } = metrics;

    public TimeProvider Clock { get; } = clock;

    /// <summary>Checks and serializes the after-commit actions user code registers.</summary>
    public AfterCommitHandlers AfterCommit { get; } = afterCommit;

    /// <summary>Where the actors' warnings go.</summary>
    public ILogger Diagnostics { get; } = loggerFactory.CreateLogger("Snapper.Actor");
}

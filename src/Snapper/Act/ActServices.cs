using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;
using Snapper.Configuration;
using Snapper.Coordination;
using Snapper.Diagnostics;
using Snapper.Failover;
using Snapper.Grains;
using Snapper.Logging;
using Snapper.Outbox;
using Snapper.Protocol;
using Snapper.Serialization;
using Snapper.State;

namespace Snapper.Act;

/// <summary>The silo's services an actor's ACT engine (<see cref="ActParticipant{TState}"/>) uses, and no others.</summary>
internal sealed class ActServices(
    IOptions<SnapperOptions> options,
    ActorResolver resolver,
    LogWriterPool logs,
    ActCommitCoordinator commit,
    ActOutcomes actOutcomes,
    IStateSerializer serializer,
    SnapperMetrics metrics,
    DepartedSilos departed,
    BatchLatency batchLatency,
    CoordinatorReferences coordinators,
    TimeProvider clock,
    AfterCommitHandlers afterCommit,
    ILoggerFactory loggerFactory) : ActorServices(options, resolver, logs, serializer, metrics, clock, afterCommit, loggerFactory)
{
    /// <summary>The silo's 2PC coordinator for the ACTs rooted here.</summary>
    public ActCommitCoordinator Commit { get; } = commit;

    /// <summary>The outcomes of early-lock-release ACTs rooted on this silo, and how to ask another silo for its own.</summary>
    public ActOutcomes ActOutcomes { get; } = actOutcomes;

    /// <summary>Silos that left the cluster, and what their logs say (docs/architecture.md, "A silo dies").</summary>
    public DepartedSilos Departed { get; } = departed;

    /// <summary>
    /// How long an ACT may wait for a PACT batch before it takes the wait for a deadlock:
    /// <see cref="SnapperOptions.DeadlockTimeout"/>, longer while this silo's batches are slow, and
    /// well short of the declaration timeout (<see cref="BatchLatency"/>).
    /// </summary>
    public TimeSpan DeadlockTimeout => batchLatency.DeadlockTimeout(Options);

    /// <summary>Completes once batch <paramref name="bid"/> of coordinator <paramref name="coordinator"/> has resolved.</summary>
    public Task<BatchOutcome> BatchOutcome(long bid, string coordinator) => coordinators.WaitResolved(coordinator, bid);
}

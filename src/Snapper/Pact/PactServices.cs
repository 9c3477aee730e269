using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;
using Snapper.Configuration;
using Snapper.Coordination;
using Snapper.Diagnostics;
using Snapper.Grains;
using Snapper.Logging;
using Snapper.Outbox;
using Snapper.Protocol;
using Snapper.Serialization;
using Snapper.State;

namespace Snapper.Pact;

/// <summary>The silo's services an actor's PACT engine (<see cref="PactParticipant{TState}"/>) uses, and no others.</summary>
internal sealed class PactServices(
    IOptions<SnapperOptions> options,
    ActorResolver resolver,
    LogWriterPool logs,
    IStateSerializer serializer,
    SnapperMetrics metrics,
    CoordinatorInboxes inboxes,
    BatchCommits batchCommits,
    CoordinatorReferences coordinators,
    TimeProvider clock,
    AfterCommitHandlers afterCommit,
    LateAnswers lateAnswers,
    ILoggerFactory loggerFactory) : ActorServices(options, resolver, logs, serializer, metrics, clock, afterCommit, loggerFactory)
{
    /// <summary>NewPact and BatchComplete to this silo's coordinators, in process.</summary>
    public CoordinatorInboxes Inboxes { get; } = inboxes;

    /// <summary>The PACT calls this silo's actors wait on, asked about when their answers are late.</summary>
    public LateAnswers LateAnswers { get; } = lateAnswers;

    /// <summary>BatchCommit as this silo learns it: once per silo, not per actor.</summary>
    public BatchCommits BatchCommits { get; } = batchCommits;

    /// <summary>The coordinator grain with key <paramref name="key"/> (a batch's, from its sub-batch or context).</summary>
    public ICoordinator Coordinator(string key) => coordinators.Get(key);

    /// <summary>True if <paramref name="coordinator"/>'s silo is active (<see cref="CoordinatorReferences.IsActive"/>).</summary>
    public bool CoordinatorIsActive(string coordinator) => coordinators.IsActive(coordinator);

    /// <summary>True if a failover of <paramref name="coordinator"/>'s silo decided batch <paramref name="bid"/> (<see cref="CoordinatorReferences.DecidedByFailover"/>).</summary>
    public bool DecidedByFailover(string coordinator, long bid) => coordinators.DecidedByFailover(coordinator, bid);

    /// <summary>Completes once batch <paramref name="bid"/> of coordinator <paramref name="coordinator"/> has resolved.</summary>
    public Task<BatchOutcome> BatchOutcome(long bid, string coordinator) => coordinators.WaitResolved(coordinator, bid);
}

using System.Collections.Concurrent;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;
using Snapper.Act;
using Snapper.Coordination;
using Snapper.Diagnostics;
using Snapper.Grains;
using Snapper.Hybrid;
using Snapper.Hosting;
using Snapper.Logging;
using Snapper.Recovery;
using Snapper.Serialization;

namespace Snapper;

/// <summary>The silo's Snapper services, handed to each transactional actor when it is activated.</summary>
internal sealed class SnapperRuntime(
    IOptions<SnapperOptions> options,
    IGrainFactory grains,
    CoordinatorReferences coordinators,
    ActorResolver resolver,
    LoggerPool loggers,
    ActCommitCoordinator commit,
    IStateSerializer serializer,
    CommittedStates states,
    IClusterMembershipService cluster,
    ILocalSiloDetails silo,
    SnapperMetrics metrics,
    BatchLatency batchLatency,
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

    /// <summary>Committed states of actors not active here (from the logs, or left by deactivated actors).</summary>
    public CommittedStates States { get; } = states;

    public SnapperMetrics Metrics { get; } = metrics;

    /// <summary>
    /// How long an ACT may wait for a PACT batch before it takes the wait for a deadlock:
    /// <see cref="SnapperOptions.DeadlockTimeout"/>, longer while this silo's batches are slow (<see cref="BatchLatency"/>).
    /// </summary>
    public TimeSpan DeadlockTimeout => batchLatency.DeadlockTimeout(Options.DeadlockTimeout, Options.TransactionTimeout);

    public TimeProvider Clock { get; } = clock;

    /// <summary>Where the actors' warnings go.</summary>
    public ILogger Diagnostics { get; } = loggerFactory.CreateLogger("Snapper.Actor");

    /// <summary>The coordinator grain with key <paramref name="key"/> (a batch's, from its sub-batch or context).</summary>
    public ICoordinator Coordinator(string key) => coordinators.Get(key);

    /// <summary>
    /// The last committed state of <paramref name="actor"/>, activating here: taken from this
    /// silo's <see cref="CommittedStates"/> and from every other active silo's (it may have been
    /// active there last); the highest version wins. Null for an actor that never committed.
    /// </summary>
    public async Task<CommittedState?> TakeCommittedState(ActorId actor)
    {
        var found = States.Take(actor);
        var others = cluster.CurrentSnapshot.Members.Values.Where(m => m.Status == SiloStatus.Active && m.Name != silo.Name).ToList();
        if (others.Count == 0)
        {
            return found;
        }

        var handedOver = await Task.WhenAll(others.Select(async member =>
        {
            try
            {
                return await grains.GetGrain<IStateHandoff>(StateHandoff.KeyOf(member.Name)).Take(actor);
            }
            catch (Exception e)
            {
                // A silo that is stopping cannot hand over; its logs are read at the next start.
                Diagnostics.LogWarning(e, "Silo {Silo} could not hand over the state of {Actor}", member.Name, actor);
                return null;
            }
        }));
        foreach (var state in handedOver)
        {
            if (state is { } s && (found is not { } best || s.Version > best.Version))
            {
                found = s;
            }
        }

        return found;
    }

    /// <summary>Completes once batch <paramref name="bid"/> of coordinator <paramref name="coordinator"/> has resolved.</summary>
    public Task<BatchOutcome> BatchOutcome(long bid, string coordinator) => coordinators.WaitResolved(coordinator, bid);
}

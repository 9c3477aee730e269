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
    LogWriterPool loggers,
    ActCommitCoordinator commit,
    ActOutcomes actOutcomes,
    IStateSerializer serializer,
    CommittedStates states,
    Failover.DepartedSilos departed,
    IClusterMembershipService cluster,
    ILocalSiloDetails silo,
    SnapperMetrics metrics,
    BatchLatency batchLatency,
    Pact.BatchCommits batchCommits,
    CoordinatorInboxes inboxes,
    TimeProvider clock,
    ILoggerFactory loggerFactory)
{
    private static readonly TimeSpan HandOverPoll = TimeSpan.FromMilliseconds(500);
    private const int HandOverAttempts = 5;

    static SnapperRuntime() => DeactivationSignal.EnsureSubscribed();

    public SnapperOptions Options { get; } = options.Value;

    /// <summary>ActorId → grain references.</summary>
    public ActorResolver Resolver { get; } = resolver;

    /// <summary>The transactional actors active on this silo, by id (for diagnostics and tests).</summary>
    public ConcurrentDictionary<ActorId, object> Activations { get; } = new();

    public LogWriterPool Loggers { get; } = loggers;

    public ActCommitCoordinator Commit { get; } = commit;

    /// <summary>The outcomes of early-lock-release ACTs rooted on this silo, and how to ask another silo for its own.</summary>
    public ActOutcomes ActOutcomes { get; } = actOutcomes;

    public IStateSerializer Serializer { get; } = serializer;

    /// <summary>Committed states of actors not active here (from the logs, or left by deactivated actors).</summary>
    public CommittedStates States { get; } = states;

    public SnapperMetrics Metrics { get; } = metrics;

    /// <summary>NewPact and BatchComplete to this silo's coordinators, in process.</summary>
    public CoordinatorInboxes Inboxes { get; } = inboxes;

    /// <summary>BatchCommit as this silo learns it: once per silo, not per actor.</summary>
    public Pact.BatchCommits BatchCommits { get; } = batchCommits;

    /// <summary>Silos that left the cluster, and what their logs say (docs/architecture.md, "A silo dies").</summary>
    public Failover.DepartedSilos Departed { get; } = departed;

    /// <summary>
    /// How long an ACT may wait for a PACT batch before it takes the wait for a deadlock:
    /// <see cref="SnapperOptions.DeadlockTimeout"/>, longer while this silo's batches are slow, and
    /// well short of the declaration timeout (<see cref="BatchLatency"/>).
    /// </summary>
    public TimeSpan DeadlockTimeout => batchLatency.DeadlockTimeout(Options);

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

        var handedOver = await Task.WhenAll(others.Select(member => HandOver(member.Name, actor)));
        foreach (var state in handedOver)
        {
            if (state is { } s && (found is not { } best || s.Version > best.Version))
            {
                found = s;
            }
        }

        return found;
    }

    // A silo that stops or dies while it is asked may never answer (its messages are lost with it):
    // once it is no longer active, what it held is in the logs, which the failover reads. An active
    // silo is asked again with the same request when an answer is lost (it gave the state away with
    // that answer), and the activation fails rather than start from an older state.
    private async Task<CommittedState?> HandOver(string member, ActorId actor)
    {
        var handoff = grains.GetGrain<IStateHandoff>(StateHandoff.KeyOf(member));
        var request = Guid.NewGuid();
        for (var attempt = 1; ; attempt++)
        {
            try
            {
                var take = handoff.Take(actor, request);
                while (await Task.WhenAny(take, Task.Delay(HandOverPoll, Clock)) != take)
                {
                    if (!Departed.IsActive(member))
                    {
                        return null;
                    }
                }

                return await take;
            }
            catch (Exception e) when (!Departed.IsActive(member))
            {
                Diagnostics.LogWarning(e, "Silo {Silo} left before it handed over the state of {Actor}", member, actor);
                return null;
            }
            catch (Exception e) when (attempt >= HandOverAttempts)
            {
                throw new SnapperException($"Silo {member} did not hand over the committed state of {actor} in {HandOverAttempts} attempts; the activation fails rather than start from an older state.", e);
            }
            catch (Exception e)
            {
                Diagnostics.LogWarning(e, "Silo {Silo} did not answer the hand-over of {Actor}; asking again", member, actor);
                await Task.Delay(HandOverPoll, Clock);
            }
        }
    }

    /// <summary>
    /// After a silo departed: the state <paramref name="actor"/> had there may be newer than any
    /// silo hands over (it was active there), so the logs as the failover read them count too, once
    /// it is sealed; and the writes it had prepared there for ACTs still undecided then come along,
    /// for the actor to settle with their roots before it serves (<see cref="Act.ActParticipant{TState}.AdoptUndecided"/>).
    /// </summary>
    public async Task<(CommittedState? State, IReadOnlyList<Logging.PrepareRecord> Undecided)> AfterDepartures(ActorId actor, CommittedState? found)
    {
        if (!Departed.Any)
        {
            return (found, []);
        }

        var settled = Departed.WhenSettled();
        var limit = 2 * Options.TransactionTimeout;
        if (await Task.WhenAny(settled, Task.Delay(limit, Clock)) != settled)
        {
            throw new SnapperException($"{actor} cannot activate: a silo left the cluster and its failover has not finished within {limit}, so its last committed state is not known yet.");
        }

        if (await settled is not { } seal)
        {
            return (found, []);
        }

        var (logged, undecided) = Failover.DepartedSilos.ForActivation(seal, actor);
        if (logged is { } l && (found is not { } f || l.Version > f.Version))
        {
            found = l;
        }

        var version = found?.Version ?? 0;
        return (found, [.. undecided.Where(p => p.Version > version)]);
    }

    /// <summary>Completes once batch <paramref name="bid"/> of coordinator <paramref name="coordinator"/> has resolved.</summary>
    public Task<BatchOutcome> BatchOutcome(long bid, string coordinator) => coordinators.WaitResolved(coordinator, bid);
}

using System.Collections.Immutable;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;
using Orleans.Concurrency;
using Snapper.Diagnostics;
using Snapper.Grains;
using Snapper.Logging;
using Snapper.Configuration;
using Snapper.Protocol;

namespace Snapper.Coordination;

/// <summary>
/// One coordinator of the PACT token ring (Snapper §4.2), a grain bound to its silo. It buffers the
/// PACTs and ACT tid requests sent to it; when the token arrives it hands out the tid ranges, puts
/// the buffered PACTs into one batch (bid = first tid) with one sub-batch per actor and that actor's
/// prevBid from the token, passes the token on at once, then logs BatchInfo and sends the BatchMsgs,
/// and commits its batches in bid order across the whole ring.
/// </summary>
/// <remarks>
/// <para>The grain only receives messages; the work is done in three rooms, each owning its state:
/// <see cref="TokenRing"/> (the token), <see cref="BatchPipeline"/> (the batches, from forming to
/// resolving) and <see cref="Cascades"/> (abort cascades and the declaration sweep).</para>
/// <para>Reentrant: NewPact and AllocateActTids wait for the token, and the token must still get
/// in. Never collected: it may hold the only token, or batches other coordinators wait on.</para>
/// </remarks>
[Reentrant]
[SiloBoundPlacement]
[CollectionAgeLimit(AlwaysActive = true)]
internal sealed class Coordinator(
    IOptions<SnapperOptions> options,
    LogWriterPool loggers,
    ActorResolver actors,
    CoordinatorReferences coordinators,
    SnapperMetrics metrics,
    BatchLatency batchLatency,
    Coordination.BatchCommits batchCommits,
    CoordinatorInboxes inboxes,
    Failover.DepartedSilos departedSilos,
    Recovery.CommittedStates recovered,
    Outbox.AfterCommitOutbox outbox,
    ILocalSiloDetails local,
    TimeProvider clock,
    ILoggerFactory loggerFactory) : Grain, ICoordinator, IDeactivating
{
    private readonly SnapperOptions settings = options.Value;
    private string key = string.Empty;
    private TokenRing ring = null!;
    private BatchPipeline pipeline = null!;
    private Cascades cascades = null!;
    private readonly TaskCompletionSource stopping = new(TaskCreationOptions.RunContinuationsAsynchronously);

    /// <inheritdoc />
    public override async Task OnActivateAsync(CancellationToken cancellationToken)
    {
        await Task.Yield(); // never complete activation synchronously: see TransactionalActor.OnActivateAsync
        key = this.GetPrimaryKeyString();
        var log = loggers.ForCoordinator(key);
        var diagnostics = loggerFactory.CreateLogger("Snapper.Pact");
        ring = new TokenRing(key, local.SiloAddress.ToParsableString(), this, log, coordinators, clock, diagnostics);

        // recovered.MaxTid is read by the silo's recovery before any grain activates: no bid above
        // it is a previous incarnation's.
        pipeline = new BatchPipeline(key, settings, log, actors, coordinators, metrics, batchLatency, batchCommits, departedSilos, outbox, recovered.MaxTid, clock, diagnostics);
        cascades = new Cascades(key, this, settings, actors, coordinators, clock, diagnostics);
        ring.Connect(pipeline, cascades);
        pipeline.Connect(ring, cascades);
        cascades.Connect(ring, pipeline);
        _ = ReadMail(inboxes.Open(key));
        await base.OnActivateAsync(cancellationToken);
    }

    /// <inheritdoc />
    public override Task OnDeactivateAsync(DeactivationReason reason, CancellationToken cancellationToken)
    {
        Stop(reason.Description);
        return base.OnDeactivateAsync(reason, cancellationToken);
    }

    // The silo is stopping (coordinators are never collected). Orleans calls OnDeactivateAsync only
    // once the calls running here return, and they may wait for ever: NewPact and AllocateActTids
    // for a token that does not come round again once the ring's other coordinators go,
    // WaitResolved and WaitDecided for batches that wait on those. So they end as soon as the
    // deactivation starts, or the stop would wait for them until Orleans gives up on it: the
    // first are refused (they took no tid; their clients ask another coordinator), the others are
    // told to ask the failover (CoordinatorStoppingException).
    void IDeactivating.Deactivating() => Stop("its silo is stopping");

    private void Stop(string reason)
    {
        stopping.TrySetResult();
        if (ring is null)
        {
            return; // deactivated before its activation finished: no token or batch waits here
        }

        inboxes.Close(key);
        ring.Refuse(new CoordinatorLeftRingException(key, $"stopped: {reason}"));
    }

    public Task PassToken(BatchToken arrived, long pass)
    {
        ring.Arrived(arrived, pass);
        return Task.CompletedTask;
    }

    public Task UpdateView(RingView newer)
    {
        ring.UpdateView(newer);
        return Task.CompletedTask;
    }

    public Task TokenParked(string holder, long parkings)
    {
        ring.ParkedAt(holder, parkings);
        return Task.CompletedTask;
    }

    public Task Wake()
    {
        ring.Wake();
        return Task.CompletedTask;
    }

    public Task<TxnContext> NewPact(ActorId root, AccessSet declared)
    {
        var pending = new PendingPact(root, declared);
        if (pipeline.Enqueue(pending))
        {
            ring.Request();
        }

        return pending.Placed.Task;
    }

    public Task<SubBatch?> SubBatchOf(long bid, ActorId actor) => Task.FromResult(pipeline.SubBatchOf(bid, actor));

    public Task<TidRange> AllocateActTids(int count)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(count, 1);
        return ring.AllocateTids(count);
    }

    public Task BatchComplete(long bid, ActorId actor, ImmutableArray<AfterCommitAction> actions)
    {
        pipeline.Completed(bid, actor, actions, sequenced: 0);
        return Task.CompletedTask;
    }

    public Task Fail(long bid, long tid, Exception cause)
    {
        pipeline.Fail(bid, tid, cause);
        return Task.CompletedTask;
    }

    public Task CascadeSealed(long through)
    {
        cascades.Sealed(through);
        return Task.CompletedTask;
    }

    public Task<BatchOutcome> WaitResolved(long bid) => UnlessStopping(pipeline.WaitResolved(bid), bid);

    public Task<BatchOutcome> WaitDecided(long bid) => UnlessStopping(pipeline.WaitDecided(bid), bid);

    // A wait here for a batch ends when this coordinator stops (CoordinatorStoppingException).
    private Task<BatchOutcome> UnlessStopping(Task<BatchOutcome> outcome, long bid) =>
        outcome.IsCompleted ? outcome : Race(outcome, bid);

    private async Task<BatchOutcome> Race(Task<BatchOutcome> outcome, long bid)
    {
        if (await Task.WhenAny(outcome, stopping.Task) != outcome)
        {
            throw new CoordinatorStoppingException(key, bid);
        }

        return await outcome;
    }

    // A silo departed (docs/architecture.md, "A silo dies"). The own batches not decided yet abort,
    // like the batches of a cascade that ends at the failover's seal: one waiting for a participant
    // on the dead silo, or behind a batch of a dead coordinator that never reached its actors, would
    // wait for ever. Batches already decided to commit keep going; whether they commit depends on
    // their predecessors, the dead coordinators' among them, which the logs answer (DepartedSilos).
    public Task<long> Halt(string silo, long epoch)
    {
        var handedOut = ring.Halt(epoch);
        pipeline.FailUndecided(new TransactionAbortedException(
            AbortReason.Failure,
            $"silo {silo} left the cluster while its batch was undecided; the ring aborts its undecided batches and re-forms without it"));
        return Task.FromResult(handedOut);
    }

    public Task FailOver(long through)
    {
        cascades.Sealed(through);
        return Task.CompletedTask;
    }

    public Task<CoordinatorStatus> Status() =>
        Task.FromResult(new CoordinatorStatus(ring.HoldsToken, ring.Parked, ring.SawToken, pipeline.Unresolved, cascades.HoldsToken, settings.CoordinatorCount, pipeline.BatchesFormed, pipeline.Waiting + ring.WaitingTidRequests, ring.View));

    // NewPact and BatchComplete from this silo, in process (CoordinatorInboxes), read in this grain's
    // context: the loop was started in it, so each await resumes on the activation's scheduler.
    private async Task ReadMail(System.Threading.Channels.ChannelReader<CoordinatorMail> mail)
    {
        while (await mail.WaitToReadAsync())
        {
            var pacts = false;
            while (mail.TryRead(out var item))
            {
                if (item.Pact is { } pending)
                {
                    pacts |= pipeline.Enqueue(pending);
                }
                else
                {
                    pipeline.Completed(item.Bid, item.Actor, item.Actions, item.Sequenced);
                }
            }

            if (pacts)
            {
                ring.Request();
            }
        }
    }
}

using System.Collections.Immutable;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;
using Orleans.Concurrency;
using Snapper.Diagnostics;
using Snapper.Grains;
using Snapper.Hosting;
using Snapper.Hybrid;
using Snapper.Logging;

namespace Snapper.Coordination;

/// <summary>
/// One coordinator of the PACT token ring (Snapper §4.2.1–4.2.2), a grain bound to its silo. It
/// buffers the PACTs and ACT tid requests sent to it; when the token arrives it hands out the tid
/// ranges, puts the buffered PACTs into one batch (bid = first tid) with one sub-batch per actor
/// and that actor's prevBid from the token, passes the token on at once, then logs BatchInfo and
/// sends the BatchMsgs. It then commits its batches in bid order across the whole ring
/// (<c>Coordinator.Resolution.cs</c>) and aborts batches whose declarations are not kept
/// (<c>Coordinator.Declarations.cs</c>).
/// </summary>
/// <remarks>
/// <para>Reentrant: NewPact and AllocateActTids wait for the token, and the token must still get
/// in. Never collected: it may hold the only token, or batches other coordinators wait on.</para>
/// <para>An idle ring parks its token: after a full lap that found nothing to do, the holder keeps
/// it and tells the other coordinators where it is; the first of them to get work wakes it. As a
/// safety net against a lost announcement, a coordinator that has waited for the token a while
/// wakes every coordinator (a wake reaching one that does not hold a parked token is ignored).</para>
/// </remarks>
[Reentrant]
[SiloBoundPlacement]
[CollectionAgeLimit(AlwaysActive = true)]
internal sealed partial class Coordinator(
    IOptions<SnapperOptions> options,
    LoggerPool loggers,
    ActorResolver actors,
    CoordinatorReferences coordinators,
    SnapperMetrics metrics,
    BatchLatency batchLatency,
    Pact.BatchCommits batchCommits,
    CoordinatorInboxes inboxes,
    Failover.DepartedSilos departedSilos,
    Recovery.CommittedStates recovered,
    TimeProvider clock,
    ILoggerFactory loggerFactory) : Grain, ICoordinator
{
    /// <summary>The pseudo actor whose id picks a coordinator's logger.</summary>
    internal const string LogActorType = "snapper.coordinator";

    private static readonly TimeSpan WakeAfter = TimeSpan.FromMilliseconds(100);

    // How many tids one TidReservation record covers beyond what is asked for at the time: one log
    // write per million tids, and a restart skips at most that many.
    private const long TidReservationChunk = 1 << 20;
    private readonly SnapperOptions settings = options.Value;
    private readonly ILogger diagnostics = loggerFactory.CreateLogger("Snapper.Pact");
    private string key = string.Empty;
    private Logger? log;
    private RingView view = RingView.Empty;
    private BatchToken? token;
    private bool parked;
    private bool reserving; // holding the token while a TidReservation is being logged
    private bool sawToken;
    private (long Generation, long Pass) lastPass; // the last pass of the token taken here
    private (string? Holder, long Parkings) parkedAt;
    private List<PendingPact> buffer = [];
    private List<PendingTids> tidRequests = [];
    private IGrainTimer? wakeTimer;
    private long batchesFormed;
    private bool deactivating; // NewPacts still queued in process are refused

    private int batchInfoWrites; // BatchInfo records of this coordinator's batches not yet durable

    // Whether the token is needed here now (PACTs held back for a BatchInfo write ask for it when the write is done).
    private bool HasWork => ReadyToForm || tidRequests.Count > 0 || NeedsCascade();

    // A batch is formed only when the previous one's BatchInfo is durable and fewer than
    // MaxBatchesInFlight of this coordinator's batches are unresolved. While the log or the batches
    // are slow (long PACTs, states costly to copy or log), PACTs gather for the next batch instead of
    // each token visit emitting a small one: batches grow with the latency (group commit at the
    // ring), the per-batch costs are shared, and the chain of batches committing in order stays short.
    private bool ReadyToForm => buffer.Count > 0 && batchInfoWrites == 0 && unresolved.Count < settings.MaxBatchesInFlight;

    /// <inheritdoc />
    public override async Task OnActivateAsync(CancellationToken cancellationToken)
    {
        await Task.Yield(); // never complete activation synchronously: see TransactionalActor.OnActivateAsync
        key = this.GetPrimaryKeyString();
        logsSawThrough = recovered.MaxTid; // read by the silo's recovery before any grain activates
        log = loggers.ForCoordinator(key);
        _ = ReadMail(inboxes.Open(key));
        await base.OnActivateAsync(cancellationToken);
    }

    /// <inheritdoc />
    public override Task OnDeactivateAsync(DeactivationReason reason, CancellationToken cancellationToken)
    {
        // The silo is stopping (coordinators are never collected): PACTs that have not joined a
        // batch never will here, so their callers hear it now instead of waiting for ever.
        inboxes.Close(key);
        deactivating = true;
        var stopped = new TransactionAbortedException(AbortReason.Failure, $"coordinator {key} stopped ({reason.Description}) before the PACT joined a batch");
        foreach (var pact in buffer)
        {
            pact.Placed.TrySetException(stopped);
        }

        buffer = [];
        return base.OnDeactivateAsync(reason, cancellationToken);
    }

    public Task PassToken(BatchToken arrived, long pass)
    {
        NoteTids(arrived);
        if (arrived.View.Epoch < haltedBefore)
        {
            return Task.CompletedTask; // a token of the ring before a failover: the failover made a new one
        }

        if (arrived.Generation < lastPass.Generation || (arrived.Generation == lastPass.Generation && pass <= lastPass.Pass))
        {
            // Taken already: its sender timed out waiting for the answer and passed it again, or
            // this is the late first delivery. Taking it twice would make two holders.
            LogMessages.TokenPassRepeated(diagnostics, key, pass);
            return Task.CompletedTask;
        }

        lastPass = (arrived.Generation, pass);

        token = arrived;
        sawToken = true;
        parked = false;
        view = RingView.Newer(view, arrived.View);
        arrived.View = view;
        if (!cascading)
        {
            ongoingCascade = 0; // a cascade elsewhere has ended: its holder passed the token on
        }

        OnToken();
        return Task.CompletedTask;
    }

    public Task UpdateView(RingView newer)
    {
        view = RingView.Newer(view, newer);
        if (token is { } held)
        {
            held.View = RingView.Newer(held.View, view);
            if (parked && !view.Members.Contains(key) && view.Members.Length > 0)
            {
                // This coordinator's silo is leaving: the token must not stay with it.
                parked = false;
                PassOn();
            }
        }

        return Task.CompletedTask;
    }

    public Task TokenParked(string holder, long parkings)
    {
        if (parkings > parkedAt.Parkings)
        {
            parkedAt = (holder, parkings);
            if (token is null && HasWork)
            {
                WakeHolder();
            }
        }

        return Task.CompletedTask;
    }

    public Task Wake()
    {
        if (token is { } held && parked)
        {
            parked = false;
            held.IdleVisits = 0;
            OnToken();
        }

        return Task.CompletedTask;
    }

    public Task<TxnContext> NewPact(ActorId root, AccessSet declared)
    {
        var pending = new PendingPact(root, declared);
        buffer.Add(pending);
        RequestToken();
        return pending.Placed.Task;
    }

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
                    if (deactivating)
                    {
                        pending.Placed.TrySetException(new TransactionAbortedException(AbortReason.Failure, $"coordinator {key} stopped before the PACT joined a batch"));
                        continue;
                    }

                    buffer.Add(pending);
                    pacts = true;
                }
                else
                {
                    Completed(item.Bid, item.Actor, item.Sequenced);
                }
            }

            if (pacts)
            {
                RequestToken();
            }
        }
    }

    public Task<TidRange> AllocateActTids(int count)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(count, 1);
        var pending = new PendingTids(count);
        tidRequests.Add(pending);
        RequestToken();
        return pending.Allocated.Task;
    }

    public Task<CoordinatorStatus> Status() =>
        Task.FromResult(new CoordinatorStatus(token is not null, parked, sawToken, unresolved.Count, cascading, view.Epoch, settings.CoordinatorCount, batchesFormed, buffer.Count + tidRequests.Count));

    // The token is here: hand out tids, form a batch, pass the token on (or park it, or hold it for
    // an abort cascade), then emit the batch.
    private void OnToken()
    {
        if (token is not { } held || cascading || reserving)
        {
            return;
        }

        if (NeedsCascade())
        {
            SealCascade(held);
            return;
        }

        held.ResolvedThrough = Math.Max(held.ResolvedThrough, resolvedThrough);
        held.ForgetResolved();
        held.LastTid = Math.Max(held.LastTid, view.TidFloor);
        if (tidRequests.Count == 0 && !ReadyToForm)
        {
            if (++held.IdleVisits >= Math.Max(1, view.Members.Length))
            {
                Park(held);
                return;
            }

            PassOn();
            return;
        }

        held.IdleVisits = 0;
        long wanted = ReadyToForm ? buffer.Count : 0;
        foreach (var request in tidRequests)
        {
            wanted += request.Count;
        }

        if (log is not null && held.LastTid + wanted > held.ReservedThrough)
        {
            _ = Reserve(held, held.LastTid + wanted + TidReservationChunk);
            return;
        }

        foreach (var request in tidRequests)
        {
            var first = held.LastTid + 1;
            held.LastTid += request.Count;
            request.Allocated.TrySetResult(new TidRange(first, request.Count));
        }

        tidRequests = [];
        FormedBatch? formed = null;
        if (ReadyToForm)
        {
            var pacts = buffer.ToImmutableArray();
            buffer = [];
            var now = clock.GetUtcNow();
            formed = BatchFormation.Form(held, pacts, key, now + settings.TransactionTimeout, now);
            metrics.BatchFormed(pacts.Length);
            batchesFormed++;
            Track(formed.Batch);
        }

        // Passed on as soon as the batch is formed, before it is emitted, executed or committed (§4.2.1).
        PassOn();
        if (formed is not null)
        {
            _ = Emit(formed);
        }
    }

    // Logs that tids up to `through` may be handed out, holding the token meanwhile, then carries on
    // where OnToken stopped. If the log cannot take it, the PACTs and tid requests waiting here fail:
    // handing out tids that a restart could hand out again would break their uniqueness.
    private async Task Reserve(BatchToken held, long through)
    {
        reserving = true;
        tidHighWater = Math.Max(tidHighWater, through); // may be durable, and handed out, before this coordinator is asked
        try
        {
            await log!.Append(new TidReservationRecord(through));
            held.ReservedThrough = through;
        }
        catch (Exception e)
        {
            var failure = new TransactionAbortedException(AbortReason.Failure, $"coordinator {key} could not log a tid reservation: {e.Message}", e);
            foreach (var pact in buffer)
            {
                pact.Placed.TrySetException(failure);
            }

            foreach (var request in tidRequests)
            {
                request.Allocated.TrySetException(failure);
            }

            buffer = [];
            tidRequests = [];
        }
        finally
        {
            reserving = false;
        }

        OnToken();
    }

    private void Park(BatchToken held)
    {
        parked = true;
        held.Parkings++;
        foreach (var member in view.Members)
        {
            if (member != key)
            {
                _ = Send(member, c => c.TokenParked(key, held.Parkings));
            }
        }
    }

    private void PassOn()
    {
        var passing = token!;
        NoteTids(passing);
        token = null;
        _ = Pass(passing);
    }

    private async Task Pass(BatchToken passing)
    {
        var pass = ++passing.Passes; // the same number each time it is tried again
        while (true)
        {
            if (view.Successor(key) is not { } next)
            {
                // No ring (every silo left): keep the token.
                token = passing;
                parked = true;
                return;
            }

            try
            {
                await coordinators.Get(next).PassToken(passing, pass);
                return;
            }
            catch (Exception e)
            {
                // The next coordinator could not take it (its silo is going away): keep it, and try
                // again along the newest view.
                LogMessages.TokenPassFailed(diagnostics, e, key, next);
                await Task.Delay(WakeAfter, clock);
            }
        }
    }

    // Someone here needs the token: take it off the shelf if it is parked here, else wake the
    // coordinator it was last seen parked at. A token under way will get here by itself.
    private void RequestToken()
    {
        if (token is { } held)
        {
            if (parked)
            {
                parked = false;
                held.IdleVisits = 0;
                OnToken();
            }

            return;
        }

        WakeHolder();
        wakeTimer ??= this.RegisterGrainTimer(WakeEveryone, WakeAfter, WakeAfter);
    }

    private void WakeHolder()
    {
        if (parkedAt.Holder is { } holder && holder != key)
        {
            parkedAt = (null, parkedAt.Parkings);
            _ = Send(holder, c => c.Wake());
        }
    }

    private Task WakeEveryone()
    {
        if (token is not null || !HasWork)
        {
            wakeTimer?.Dispose();
            wakeTimer = null;
            return Task.CompletedTask;
        }

        foreach (var member in view.Members)
        {
            if (member != key)
            {
                _ = Send(member, c => c.Wake());
            }
        }

        return Task.CompletedTask;
    }

    // BatchMsgs go out at once; BatchInfo is logged alongside rather than ahead of them (a departure
    // from Snapper §4.2.4, deliberate): recovery presumes abort for a batch without a BatchCommit and
    // never needs its participant list, and BatchCommit is appended to the same logger after
    // BatchInfo, so whenever a batch counts as committed its BatchInfo is in the log too. Waiting for
    // it would put one more log write on every PACT's path.
    private async Task Emit(FormedBatch formed)
    {
        var batch = formed.Batch;
        batchInfoWrites++;
        var written = log?.Append(new BatchInfoRecord(batch.Bid, key, batch.Participants)) ?? Task.CompletedTask;
        foreach (var (actor, sub) in formed.SubBatches)
        {
            SendBatchMsg(actor, sub);
        }

        for (var i = 0; i < formed.Pacts.Length; i++)
        {
            formed.Pacts[i].Placed.TrySetResult(formed.Contexts[i]);
        }

        try
        {
            await written;
        }
        catch (Exception e)
        {
            FailBatch(batch, 0, new TransactionAbortedException(AbortReason.Failure, $"coordinator {key} could not log BatchInfo of batch {batch.Bid}: {e.Message}", e));
        }
        finally
        {
            batchInfoWrites--;
            AskForTokenIfPactsWait(); // held back while this BatchInfo was being written
        }
    }

    // PACTs held back (ReadyToForm) form the next batch at the token's next visit here.
    private void AskForTokenIfPactsWait()
    {
        if (ReadyToForm)
        {
            RequestToken();
        }
    }

    private async Task Send(string coordinator, Func<ICoordinator, Task> message)
    {
        try
        {
            await message(coordinators.Get(coordinator));
        }
        catch (Exception e)
        {
            LogMessages.CoordinatorMessageFailed(diagnostics, e, key, coordinator);
        }
    }

    // BatchMsg, one-way as in the paper: a lost one stalls its batch until the declaration sweep
    // aborts it. (BatchCommit goes once per silo: Pact/BatchCommits.) A one-way call's task is
    // complete once the message is handed to Orleans, so only a send that failed needs awaiting.
    private void SendBatchMsg(ActorId actor, Pact.SubBatch sub)
    {
        try
        {
            var sent = actors.Participant(actor).OnBatch(sub);
            if (!sent.IsCompletedSuccessfully)
            {
                _ = Observe(actor, sent);
            }
        }
        catch (Exception e)
        {
            LogMessages.DeliveryFailed(diagnostics, e, actor);
        }
    }

    private async Task Observe(ActorId actor, Task sent)
    {
        try
        {
            await sent;
        }
        catch (Exception e)
        {
            LogMessages.DeliveryFailed(diagnostics, e, actor);
        }
    }
}

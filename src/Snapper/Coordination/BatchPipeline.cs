using System.Collections.Immutable;
using Microsoft.Extensions.Logging;
using Snapper.Diagnostics;
using Snapper.Failover;
using Snapper.Grains;
using Snapper.Logging;
using Snapper.Outbox;
using Snapper.Configuration;
using Snapper.Protocol;

namespace Snapper.Coordination;

/// <summary>
/// A coordinator's room for its batches (Snapper §4.2.2–4.2.4): the PACTs waiting for the token,
/// forming a batch under it, emitting it (BatchInfo and the BatchMsgs), and then deciding, logging,
/// resolving and acknowledging it in bid order across the whole ring, or aborting it.
/// </summary>
/// <remarks>
/// <para><b>Commit in bid order across the ring, logged in a pipeline.</b> Each batch waits for the
/// batch emitted just before it (by any coordinator: the token names it) to be <em>decided</em>,
/// asking that coordinator (<see cref="ICoordinator.WaitDecided"/>); once it is and every
/// participant sent BatchComplete, it decides to commit and logs BatchCommit naming the previous
/// batch as its dependency (<see cref="BatchCommitRecord.DependsOn"/>). It tells its participants
/// (BatchCommit) and <em>resolves</em> only once its record is durable and the previous batch has
/// resolved. So decisions follow one another at the speed of a message, the BatchCommits of many
/// batches share one group commit, and still "batch b has resolved" means every batch before it has
/// too, durably. Were batch b's record lost, recovery drops every later BatchCommit that depends on
/// it; were its write to fail, b aborts and the cascade (<see cref="Cascades"/>) takes the batches
/// that decided after it.</para>
/// </remarks>
internal sealed class BatchPipeline(
    string key,
    SnapperOptions settings,
    LogWriter? log,
    ActorResolver actors,
    CoordinatorReferences coordinators,
    SnapperMetrics metrics,
    BatchLatency batchLatency,
    BatchCommits batchCommits,
    DepartedSilos departedSilos,
    AfterCommitOutbox outbox,
    long logsSawThrough,
    TimeProvider clock,
    ILogger diagnostics)
{
    private readonly SortedDictionary<long, EmittedBatch> unresolved = new();

    private readonly AbortedBatches aborted = new(2 * settings.TransactionTimeout);

    private TokenRing ring = null!;
    private Cascades cascades = null!;
    private List<PendingPact> buffer = [];
    private CoordinatorLeftRingException? refusing; // set once out of the ring or stopping: NewPacts are refused with it
    private int batchInfoWrites; // BatchInfo records of this coordinator's batches not yet durable
    private long batchesFormed;
    private long resolvedThrough;
    private long firstTracked; // the first batch this activation emitted

    /// <summary>
    /// A batch is formed only when the previous one's BatchInfo is durable and fewer than
    /// MaxBatchesInFlight of this coordinator's batches are unresolved. While the log or the batches
    /// are slow (long PACTs, states costly to copy or log), PACTs gather for the next batch instead of
    /// each token visit emitting a small one: batches grow with the latency (group commit at the
    /// ring), the per-batch costs are shared, and the chain of batches committing in order stays short.
    /// </summary>
    public bool ReadyToForm => buffer.Count > 0 && batchInfoWrites == 0 && unresolved.Count < settings.MaxBatchesInFlight;

    /// <summary>PACTs waiting for the token.</summary>
    public int Waiting => buffer.Count;

    public int Unresolved => unresolved.Count;

    public long BatchesFormed => batchesFormed;

    /// <summary>Every batch of this coordinator up to here has resolved.</summary>
    public long ResolvedThrough => resolvedThrough;

    /// <summary>A batch of this coordinator failed and no cascade has been sealed for it yet.</summary>
    public bool HasUnsealedFailure
    {
        get
        {
            // Asked at every token visit: a loop over the struct enumerator allocates nothing.
            foreach (var batch in unresolved.Values)
            {
                if (batch.Phase == BatchPhase.Aborting && batch.SealedThrough == 0)
                {
                    return true;
                }
            }

            return false;
        }
    }

    public void Connect(TokenRing tokenRing, Cascades aborts)
    {
        ring = tokenRing;
        cascades = aborts;
    }

    /// <summary>NewPact: waits for the token; false if this coordinator is out of the ring or stopping.</summary>
    public bool Enqueue(PendingPact pending)
    {
        if (refusing is { } refusal)
        {
            pending.Placed.TrySetException(refusal);
            return false;
        }

        pending.Enqueued = clock.GetUtcNow();
        buffer.Add(pending);
        return true;
    }

    /// <summary>
    /// This coordinator will not hold the token again (out of the ring, or stopping): the PACTs
    /// waiting for it, and any sent here later, are refused with <paramref name="refusal"/>; they
    /// took no tid, so their clients send them to another coordinator.
    /// </summary>
    public void Refuse(CoordinatorLeftRingException refusal)
    {
        refusing ??= refusal;
        FailWaiting(refusal);
    }

    /// <summary>Fails every PACT waiting for the token.</summary>
    public void FailWaiting(Exception failure)
    {
        foreach (var pact in buffer)
        {
            pact.Placed.TrySetException(failure);
        }

        buffer = [];
    }

    /// <summary>Under the token: the waiting PACTs become one batch, tracked from now on.</summary>
    public FormedBatch Form(BatchToken held)
    {
        var pacts = buffer.ToImmutableArray();
        buffer = [];
        var now = clock.GetUtcNow();
        var formed = BatchFormation.Form(held, pacts, key, now + settings.TransactionTimeout, now);
        metrics.BatchFormed(pacts.Length, pacts.Length > 0 ? now - pacts[0].Enqueued : TimeSpan.Zero); // the buffer is in arrival order
        batchesFormed++;
        firstTracked = firstTracked == 0 ? formed.Batch.Bid : firstTracked;
        unresolved[formed.Batch.Bid] = formed.Batch;
        cascades.EnsureDeclarationSweep();
        _ = AwaitPredecessor(formed.Batch);
        return formed;
    }

    // BatchMsgs go out at once; BatchInfo is logged alongside rather than ahead of them (a departure
    // from Snapper §4.2.4, deliberate): recovery presumes abort for a batch without a BatchCommit and
    // never needs its participant list, and BatchCommit is appended to the same log after
    // BatchInfo, so whenever a batch counts as committed its BatchInfo is in the log too. Waiting for
    // it would put one more log write on every PACT's path.
    public async Task Emit(FormedBatch formed)
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
            cascades.FailBatch(batch, 0, new TransactionAbortedException(AbortReason.Failure, $"coordinator {key} could not log BatchInfo of batch {batch.Bid}: {e.Message}", e));
        }
        finally
        {
            batchInfoWrites--;
            AskForTokenIfPactsWait(); // held back while this BatchInfo was being written
        }
    }

    /// <summary>BatchComplete. <paramref name="sequenced"/>: see <see cref="CoordinatorMail.Sequenced"/>.</summary>
    public void Completed(long bid, ActorId actor, ImmutableArray<AfterCommitAction> actions, long sequenced)
    {
        if (unresolved.TryGetValue(bid, out var batch) && batch.Phase == BatchPhase.Emitted && batch.Pending.Remove(actor))
        {
            if (!actions.IsDefaultOrEmpty)
            {
                (batch.Actions ??= []).AddRange(actions);
            }

            if (sequenced > 0)
            {
                batch.SequencedFrom = batch.SequencedFrom == 0 ? sequenced : Math.Min(batch.SequencedFrom, sequenced);
                batch.SequencedThrough = Math.Max(batch.SequencedThrough, sequenced);
            }

            if (batch.Pending.Count == 0)
            {
                batch.CompletedAt = clock.GetUtcNow();
                metrics.BatchCompleted(batch.CompletedAt.Value - batch.EmittedAt);
                batch.Phase = BatchPhase.Completed;
                _ = Commit(batch);
            }
        }
    }

    /// <summary><see cref="ICoordinator.SubBatchOf"/>.</summary>
    public SubBatch? SubBatchOf(long bid, ActorId actor) =>
        unresolved.TryGetValue(bid, out var batch) && batch.Phase == BatchPhase.Emitted && batch.Pending.Contains(actor) ? batch.SubBatchOf(actor) : null;

    /// <summary><see cref="ICoordinator.Fail"/>: PACT <paramref name="tid"/> of batch <paramref name="bid"/> failed (0: the whole batch).</summary>
    public void Fail(long bid, long tid, Exception cause)
    {
        if (unresolved.TryGetValue(bid, out var batch))
        {
            cascades.FailBatch(batch, tid, cause);
        }
    }

    /// <summary>A silo departed: the batches not decided yet abort (<see cref="ICoordinator.Halt"/>).</summary>
    public void FailUndecided(Exception cause)
    {
        foreach (var batch in unresolved.Values.Where(b => b.Phase is BatchPhase.Emitted or BatchPhase.Completed).ToList())
        {
            cascades.FailBatch(batch, 0, cause);
        }
    }

    /// <summary>The batches still waiting for BatchCompletes since longer than <paramref name="allowed"/>, oldest first.</summary>
    public List<EmittedBatch> Overdue(DateTimeOffset now, TimeSpan allowed) =>
        unresolved.Values.Where(b => b.Phase == BatchPhase.Emitted && now - b.RunnableSince > allowed).ToList();

    /// <summary>
    /// A cascade through <paramref name="through"/> was sealed here or elsewhere: the own failed
    /// batches it covers abort with it, once their predecessors are settled.
    /// </summary>
    public void SealFailed(long through)
    {
        foreach (var batch in unresolved.Values.Where(b => b.Phase == BatchPhase.Aborting && b.SealedThrough == 0 && b.Bid <= through).ToList())
        {
            cascades.SealBatch(batch, through);
        }
    }

    /// <summary><see cref="ICoordinator.WaitResolved"/>.</summary>
    public Task<BatchOutcome> WaitResolved(long bid) => LocalOutcome(bid);

    /// <summary><see cref="ICoordinator.WaitDecided"/>.</summary>
    public Task<BatchOutcome> WaitDecided(long bid) =>
        unresolved.TryGetValue(bid, out var batch) ? batch.Decided.Task : LocalOutcome(bid);

    /// <summary>How batch <paramref name="bid"/> of coordinator <paramref name="coordinator"/> resolved, once it has.</summary>
    public Task<BatchOutcome> OutcomeOf(long bid, string? coordinator) => Ask(bid, coordinator, LocalOutcome, coordinators.WaitResolved);

    // Batches are decided, and resolve, in bid order. Each waits for its predecessor's decision,
    // then decides to commit once complete, or aborts if the predecessor's cascade takes it (or it
    // failed itself); then for its predecessor's resolution, which may still doom it (a BatchCommit
    // that could not be logged) and without which it cannot resolve.
    private async Task AwaitPredecessor(EmittedBatch batch)
    {
        var decided = await Ask(batch.PreviousBid, batch.PreviousCoordinator, WaitDecided, coordinators.WaitDecided);
        batch.PredecessorSettled = true;
        batch.CommitDependency = decided.Logging ? batch.PreviousBid : 0; // else it aborted, or its commit is durable already
        if (decided.Dooms(batch.Bid))
        {
            batch.PredecessorResolved.TrySetResult(decided); // an abort is decided only once resolved
            await cascades.Doom(batch, decided);
            return;
        }

        if (batch.Phase == BatchPhase.Completed)
        {
            _ = Commit(batch);
        }
        else if (batch.Phase == BatchPhase.Aborting && batch.SealedThrough > 0)
        {
            _ = cascades.AbortBatch(batch);
        }

        var resolved = decided.Logging ? await OutcomeOf(batch.PreviousBid, batch.PreviousCoordinator) : decided;
        batch.PredecessorResolved.TrySetResult(resolved);
        if (resolved.Dooms(batch.Bid))
        {
            await cascades.Doom(batch, resolved);
        }
        else if (batch.Phase == BatchPhase.CommitLogged)
        {
            Acknowledge(batch);
        }
    }

    /// <summary>
    /// Decides to commit once every participant completed it, its predecessor is decided and no
    /// abort of one of its PACTs is under way; called at each of those events.
    /// </summary>
    public async Task Commit(EmittedBatch batch)
    {
        if (batch.Phase != BatchPhase.Completed || !batch.PredecessorSettled || batch.PactAbortsUnderway > 0)
        {
            return;
        }

        batch.Phase = BatchPhase.Committing;
        batch.OwedActions = OwedActions(batch);
        batch.Decided.TrySetResult(BatchOutcome.CommitLogging);
        try
        {
            if (log is not null)
            {
                // The actions just before the decision in the same log, which is durable only if they are.
                var actions = batch.OwedActions;
                var record = new BatchCommitRecord(batch.Bid) { DependsOn = batch.CommitDependency };
                await (actions.Length > 0 ? log.AppendBefore(new AfterCommitRecord(batch.Bid, Batch: true, actions), record, batch.SequencedFrom, batch.SequencedThrough)
                    : batch.SequencedFrom == 0 ? log.Append(record)
                    : log.AppendAfter(record, batch.SequencedFrom, batch.SequencedThrough));
            }
        }
        catch (Exception e)
        {
            if (batch.Phase == BatchPhase.Committing)
            {
                // Not durable, so not committed after all. Batches after it may have decided on
                // it: the cascade this failure starts reaches them (their records depend on this one).
                batch.Phase = BatchPhase.Completed;
                cascades.FailBatch(batch, 0, new TransactionAbortedException(AbortReason.Failure, $"coordinator {key} could not log BatchCommit of batch {batch.Bid}: {e.Message}", e));
            }

            return;
        }

        if (batch.Phase != BatchPhase.Committing)
        {
            return; // a predecessor's failed BatchCommit doomed it meanwhile
        }

        batch.Phase = BatchPhase.CommitLogged;
        if (batch.PredecessorResolved.Task.IsCompletedSuccessfully && !batch.PredecessorResolved.Task.Result.Dooms(batch.Bid))
        {
            Acknowledge(batch);
        }
    }

    // Its BatchCommit and every earlier batch's are durable: committed for good. Tell the
    // participants: one announcement per silo, not a message per participant (BatchCommits).
    private void Acknowledge(EmittedBatch batch)
    {
        if (batch.Phase != BatchPhase.CommitLogged)
        {
            return;
        }

        Resolve(batch, BatchOutcome.Commit);
        batchCommits.Announce(key, batch.Bid);
        if (batch.OwedActions.Length > 0)
        {
            outbox.Deliver(batch.OwedActions);
        }
    }

    // The after-commit actions a committing batch owes: those of its PACTs that did not fail.
    private static ImmutableArray<AfterCommitAction> OwedActions(EmittedBatch batch) =>
        batch.Actions is not { } actions ? []
        : batch.PactFailures is not { } failed ? [.. actions]
        : [.. actions.Where(a => !failed.ContainsKey(a.Tid))];

    /// <summary>The batch has resolved: committed, or aborted with every participant rolled back.</summary>
    public void Resolve(EmittedBatch batch, BatchOutcome outcome)
    {
        batch.Phase = BatchPhase.Resolved;
        unresolved.Remove(batch.Bid);
        resolvedThrough = Math.Max(resolvedThrough, batch.Bid);
        var now = clock.GetUtcNow();
        if (!outcome.Committed)
        {
            aborted.Add(batch.Bid, outcome, now);
        }

        batch.Decided.TrySetResult(outcome);
        batch.Resolved.TrySetResult(outcome);
        if (outcome.Committed)
        {
            batchLatency.Observe(now - batch.EmittedAt);
            if (batch.CompletedAt is { } completed)
            {
                metrics.BatchCommitted(now - completed);
            }
        }

        AskForTokenIfPactsWait(); // held back while MaxBatchesInFlight were unresolved
    }

    // PACTs held back (ReadyToForm) form the next batch at the token's next visit here.
    private void AskForTokenIfPactsWait()
    {
        if (ReadyToForm)
        {
            ring.Request();
        }
    }

    private Task<BatchOutcome> LocalOutcome(long bid)
    {
        if (unresolved.TryGetValue(bid, out var batch))
        {
            return batch.Resolved.Task;
        }

        if (aborted.TryGet(bid, out var abort))
        {
            return Task.FromResult(abort);
        }

        if (bid <= logsSawThrough && (firstTracked == 0 || bid < firstTracked) && settings.Logging != LoggingMode.None)
        {
            // Not emitted by this activation: by its silo's previous incarnation, which died (a silo
            // of the same name has joined since). The failover decided it from the logs, and they
            // still say how: committed if its BatchCommit counts.
            return OutcomeInLogs(bid);
        }

        return Task.FromResult(BatchOutcome.Commit);
    }

    private async Task<BatchOutcome> OutcomeInLogs(long bid) =>
        await departedSilos.BatchCommittedNow(bid) ? BatchOutcome.Commit : BatchOutcome.Abort(bid);

    // Bid 0 (no batch before) counts as committed; this coordinator's own batches are asked locally.
    private async Task<BatchOutcome> Ask(long bid, string? coordinator, Func<long, Task<BatchOutcome>> local, Func<string, long, Task<BatchOutcome>> remote)
    {
        if (bid == 0 || coordinator is null)
        {
            return BatchOutcome.Commit;
        }

        return coordinator == key ? await local(bid) : await remote(coordinator, bid);
    }

    // BatchMsg, one-way as in the paper: a lost one stalls its batch until the declaration sweep
    // aborts it. (BatchCommit goes once per silo: BatchCommits.) A one-way call's task is
    // complete once the message is handed to Orleans, so only a send that failed needs awaiting.
    private void SendBatchMsg(ActorId actor, SubBatch sub)
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

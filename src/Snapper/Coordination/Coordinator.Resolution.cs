using Snapper.Diagnostics;
using Snapper.Logging;
using Snapper.Pact;

namespace Snapper.Coordination;

/// <summary>
/// Commit and abort of the batches this coordinator emitted (Snapper §4.2.4).
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
/// it; were its write to fail, b aborts and the cascade below takes the batches that decided after it.</para>
/// <para><b>A PACT aborts with its readers only.</b> A PACT that throws (or makes a declaration
/// error) is reported here; every actor it declared is told (<see cref="Grains.ISnapperParticipant.AbortPact"/>)
/// to skip or end its turn and take its write back, naming the PACTs that read it, which are
/// aborted the same way; the batch decides only once all that is done. Its other PACTs, and the
/// batches after it, are untouched. If an actor could not take the write back (an ACT read it),
/// the whole batch fails as below.</para>
/// <para><b>Abort cascade.</b> A PACT whose writes an ACT read (or a failed log write) fails its
/// batch b. The paper aborts every uncommitted batch; here the batches before b are left
/// to commit, and every batch emitted after b up to the point the cascade is <em>sealed</em> aborts,
/// since each may have read b's writes: the coordinator that holds the token next seals the cascade
/// at the token's last bid T (emission pauses while it holds the token), tells the other
/// coordinators T, and each doomed batch aborts once its predecessor has resolved — b with the
/// PACTs' causes, the batches after it because their predecessor's outcome says "aborted through T".
/// Participants roll back the batches from the aborted one through T. When batch T has resolved,
/// nothing of the cascade is left in any schedule, so the token forgets its prevBids and emission
/// resumes; a batch formed after that follows T but is beyond it, so T's outcome does not doom it.</para>
/// </remarks>
internal sealed partial class Coordinator
{
    private const int RollbackAttempts = 5;
    private static readonly TimeSpan RollbackRetry = TimeSpan.FromMilliseconds(100);

    private readonly SortedDictionary<long, EmittedBatch> unresolved = new();

    // Own batches that aborted, with the end of their cascade, remembered for WaitResolved for twice
    // the transaction timeout (longer than anyone can still ask); an own bid not found is committed
    // if this activation emitted it (LocalOutcome).
    private readonly Dictionary<long, (long Through, DateTimeOffset At)> aborted = new();

    private long resolvedThrough;
    private long firstTracked;   // the first batch this activation emitted
    private long logsSawThrough; // the highest tid in the logs as the silo started: no bid above it is a previous incarnation's
    private bool cascading;      // holding the token until a cascade this coordinator sealed has ended
    private long ongoingCascade; // T of a cascade sealed anywhere and not known to be over (0: none)

    public Task BatchComplete(long bid, ActorId actor)
    {
        Completed(bid, actor, sequenced: 0);
        return Task.CompletedTask;
    }

    // BatchComplete. `sequenced`: see CoordinatorMail.Sequenced.
    private void Completed(long bid, ActorId actor, long sequenced)
    {
        if (unresolved.TryGetValue(bid, out var batch) && batch.Phase == BatchPhase.Emitted && batch.Pending.Remove(actor))
        {
            if (sequenced > 0)
            {
                batch.SequencedFrom = batch.SequencedFrom == 0 ? sequenced : Math.Min(batch.SequencedFrom, sequenced);
                batch.SequencedThrough = Math.Max(batch.SequencedThrough, sequenced);
            }

            if (batch.Pending.Count == 0)
            {
                batch.Phase = BatchPhase.Completed;
                _ = Commit(batch);
            }
        }
    }

    public Task Fail(long bid, long tid, Exception cause)
    {
        if (unresolved.TryGetValue(bid, out var batch))
        {
            FailBatch(batch, tid, cause);
        }

        return Task.CompletedTask;
    }

    public Task<BatchOutcome> WaitResolved(long bid) => LocalOutcome(bid);

    public Task<BatchOutcome> WaitDecided(long bid) => LocalDecision(bid);

    public Task CascadeSealed(long through)
    {
        ongoingCascade = Math.Max(ongoingCascade, through);
        foreach (var batch in unresolved.Values.Where(b => b.Phase == BatchPhase.Aborting && b.SealedThrough == 0 && b.Bid <= through).ToList())
        {
            Seal(batch, through);
        }

        return Task.CompletedTask;
    }

    private void Track(EmittedBatch batch)
    {
        firstTracked = firstTracked == 0 ? batch.Bid : firstTracked;
        unresolved[batch.Bid] = batch;
        EnsureDeclarationSweep();
        _ = AwaitPredecessor(batch);
    }

    private void FailBatch(EmittedBatch batch, long tid, Exception cause)
    {
        if (batch.Phase is BatchPhase.Committing or BatchPhase.CommitLogged or BatchPhase.Resolved)
        {
            return; // decided: its BatchCommit is being written or was
        }

        if (tid == 0)
        {
            batch.Failure ??= cause;
            AbortWholeBatch(batch);
        }
        else if ((batch.PactFailures ??= new()).TryAdd(tid, cause) && batch.Phase != BatchPhase.Aborting)
        {
            if (batch.DeclarationOf(tid) is { } declared)
            {
                _ = AbortPact(batch, tid, declared, cause);
            }
            else
            {
                AbortWholeBatch(batch); // not one of its PACTs: nothing says what to take back
            }
        }
    }

    // One PACT failed: every actor it declared skips or ends its turn and takes its write back,
    // with the PACTs that read it, which their coordinators abort the same way before this batch
    // decides (theirs are this batch or later ones, which decide after it). If an actor could not
    // take the write back (an ACT read it), the batch aborts whole.
    private async Task AbortPact(EmittedBatch batch, long tid, AccessSet declared, Exception cause)
    {
        batch.PactAbortsUnderway++;
        var undone = (await Task.WhenAll(declared.Accesses.Select(access => TakeBack(batch, tid, access.Key, cause)))).All(done => done);
        batch.PactAbortsUnderway--;
        if (undone)
        {
            LogMessages.PactAbortedAlone(diagnostics, key, tid, batch.Bid);
            _ = Commit(batch);
        }
        else
        {
            LogMessages.PactAbortTakesBatch(diagnostics, key, tid, batch.Bid);
            AbortWholeBatch(batch);
        }
    }

    // Aborted PACT tid takes its write back on one actor. The PACTs that read it there are aborted
    // as soon as that actor answers, not once every actor has (another may be running a call of tid
    // for as long as its user code takes): that actor has ended their turns already, so their
    // callers hear now, and why. False if the write could not be taken back alone or a reader's
    // coordinator could not be told.
    private async Task<bool> TakeBack(EmittedBatch batch, long tid, ActorId actor, Exception cause)
    {
        PactAbortAnswer answer;
        try
        {
            // Bounded: an actor whose activation is going answers only once its running calls
            // end, and one of them may wait for this batch. Unanswered, the whole batch aborts.
            answer = await actors.Participant(actor).AbortPact(batch.Bid, tid, cause).WaitAsync(settings.DeclarationTimeout, clock);
        }
        catch (Exception e)
        {
            LogMessages.DeliveryFailed(diagnostics, e, actor);
            return false;
        }

        return answer.Undone && (await Task.WhenAll(answer.Readers.Select(reader => AbortReader(reader, tid)))).All(told => told);
    }

    // A PACT read the write of aborted PACT tid: it aborts too, told to its coordinator (answered
    // at once, before the batch of tid decides). False if that coordinator could not be told.
    private async Task<bool> AbortReader(PactRef reader, long tid)
    {
        var cause = reader.ReadAbortedWrite(tid);
        if (reader.Coordinator == key)
        {
            if (unresolved.TryGetValue(reader.Bid, out var batch))
            {
                FailBatch(batch, reader.Tid, cause);
            }

            return true;
        }

        try
        {
            await coordinators.Get(reader.Coordinator).Fail(reader.Bid, reader.Tid, cause);
            return true;
        }
        catch (Exception e)
        {
            LogMessages.CoordinatorMessageFailed(diagnostics, e, key, reader.Coordinator);
            return false;
        }
    }

    private void AbortWholeBatch(EmittedBatch batch)
    {
        if (batch.Phase is BatchPhase.Aborting or BatchPhase.Committing or BatchPhase.CommitLogged or BatchPhase.Resolved)
        {
            return; // already on its way out (the cause is recorded for its callers), or decided
        }

        batch.Phase = BatchPhase.Aborting;
        if (ongoingCascade >= batch.Bid)
        {
            // Emission is paused for a cascade sealed past this batch: it ends there too.
            Seal(batch, ongoingCascade);
        }
        else
        {
            RequestToken(); // sealed where the token is (OnToken → SealCascade)
        }
    }

    private bool NeedsCascade()
    {
        foreach (var batch in unresolved.Values)
        {
            if (batch.Phase == BatchPhase.Aborting && batch.SealedThrough == 0)
            {
                return true;
            }
        }

        return false;
    }

    // The token is here and a batch of this coordinator failed: everything emitted so far is in
    // the cascade. Hold the token (no batch is formed meanwhile) until the cascade has ended.
    private void SealCascade(BatchToken held)
    {
        cascading = true;
        var through = held.LastBid;
        ongoingCascade = through;
        foreach (var batch in unresolved.Values.Where(b => b.Phase == BatchPhase.Aborting && b.SealedThrough == 0).ToList())
        {
            Seal(batch, through);
        }

        foreach (var member in view.Members)
        {
            if (member != key)
            {
                _ = Send(member, c => c.CascadeSealed(through));
            }
        }

        _ = EndCascade(held, through, held.LastBidCoordinator);
    }

    private void Seal(EmittedBatch batch, long through)
    {
        batch.SealedThrough = through;
        if (batch.PredecessorSettled)
        {
            _ = AbortBatch(batch);
        }
    }

    private async Task EndCascade(BatchToken held, long through, string? throughCoordinator)
    {
        await OutcomeOf(through, throughCoordinator); // every batch up to T has resolved

        // No batch of the cascade is left in any schedule: the prevBids in the token point at
        // batches that are committed or gone (§4.2.5).
        held.PrevBid.Clear();
        held.ResolvedThrough = Math.Max(held.ResolvedThrough, through);
        LogMessages.PactCascade(diagnostics, key, through);
        cascading = false;
        ongoingCascade = 0;
        OnToken();
    }

    // Batches are decided, and resolve, in bid order. Each waits for its predecessor's decision,
    // then decides to commit once complete, or aborts if the predecessor's cascade takes it (or it
    // failed itself); then for its predecessor's resolution, which may still doom it (a BatchCommit
    // that could not be logged) and without which it cannot resolve.
    private async Task AwaitPredecessor(EmittedBatch batch)
    {
        var decided = await DecisionOf(batch.PreviousBid, batch.PreviousCoordinator);
        batch.PredecessorSettled = true;
        batch.CommitDependency = decided.Logging ? batch.PreviousBid : 0; // else it aborted, or its commit is durable already
        if (decided.Dooms(batch.Bid))
        {
            batch.PredecessorResolved.TrySetResult(decided); // an abort is decided only once resolved
            await Doom(batch, decided.AbortedThrough);
            return;
        }

        if (batch.Phase == BatchPhase.Completed)
        {
            _ = Commit(batch);
        }
        else if (batch.Phase == BatchPhase.Aborting && batch.SealedThrough > 0)
        {
            _ = AbortBatch(batch);
        }

        var resolved = decided.Logging ? await OutcomeOf(batch.PreviousBid, batch.PreviousCoordinator) : decided;
        batch.PredecessorResolved.TrySetResult(resolved);
        if (resolved.Dooms(batch.Bid))
        {
            await Doom(batch, resolved.AbortedThrough);
        }
        else if (batch.Phase == BatchPhase.CommitLogged)
        {
            Acknowledge(batch);
        }
    }

    // An aborted predecessor's cascade takes this batch, whatever it had decided: a decision to
    // commit that is not yet acknowledged depends on the predecessor's, which will not count.
    private async Task Doom(EmittedBatch batch, long through)
    {
        if (batch.Phase is BatchPhase.Resolved || batch.AbortStarted)
        {
            return;
        }

        batch.Phase = BatchPhase.Aborting;
        batch.SealedThrough = through;
        await AbortBatch(batch);
    }

    // Decides to commit once every participant completed it, its predecessor is decided and no
    // abort of one of its PACTs is under way; called at each of those events.
    private async Task Commit(EmittedBatch batch)
    {
        if (batch.Phase != BatchPhase.Completed || !batch.PredecessorSettled || batch.PactAbortsUnderway > 0)
        {
            return;
        }

        batch.Phase = BatchPhase.Committing;
        batch.Decided.TrySetResult(BatchOutcome.CommitLogging);
        try
        {
            if (log is not null)
            {
                var record = new BatchCommitRecord(batch.Bid) { DependsOn = batch.CommitDependency };
                await (batch.SequencedFrom == 0 ? log.Append(record) : log.AppendAfter(record, batch.SequencedFrom, batch.SequencedThrough));
            }
        }
        catch (Exception e)
        {
            if (batch.Phase == BatchPhase.Committing)
            {
                // Not durable, so not committed after all. Batches after it may have decided on
                // it: the cascade this failure starts reaches them (their records depend on this one).
                batch.Phase = BatchPhase.Completed;
                FailBatch(batch, 0, new TransactionAbortedException(AbortReason.Failure, $"coordinator {key} could not log BatchCommit of batch {batch.Bid}: {e.Message}", e));
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
    }

    // Rolls the batch back on every participant (and, there, every batch after it through the
    // cascade's end), then resolves it as aborted. Participants answer once they have rolled back,
    // so when the cascade's last batch has resolved no aborted state is left anywhere.
    private async Task AbortBatch(EmittedBatch batch)
    {
        if (batch.AbortStarted || batch.Phase is BatchPhase.Resolved)
        {
            return;
        }

        batch.AbortStarted = true;
        batch.Phase = BatchPhase.Aborting;
        var causes = new Dictionary<long, Exception>();
        foreach (var tid in batch.Tids)
        {
            if (batch.PactFailures is { } failed && failed.TryGetValue(tid, out var cause))
            {
                causes[tid] = cause;
            }
            else if (batch.Failure is { } whole)
            {
                causes[tid] = whole;
            }
        }

        var through = batch.SealedThrough;
        await Task.WhenAll(batch.Participants.Select(async actor =>
        {
            // Delivered until answered, a few times: an actor that misses it keeps the batch in
            // its schedule, and every later batch there waits behind it. Orleans gives up
            // forwarding a message to an actor that deactivated twice on its way, say.
            for (var attempt = 1; ; attempt++)
            {
                try
                {
                    await actors.Participant(actor).OnAbort(batch.Bid, through, causes);
                    return;
                }
                catch (Exception e) when (attempt < RollbackAttempts)
                {
                    LogMessages.DeliveryFailed(diagnostics, e, actor);
                    await Task.Delay(RollbackRetry * attempt, clock);
                }
                catch (Exception e)
                {
                    LogMessages.DeliveryFailed(diagnostics, e, actor);
                    return;
                }
            }
        }));

        // An abort resolves after its predecessor: a batch that follows it may then log its
        // BatchCommit without a dependency, since everything before is durable.
        await batch.PredecessorResolved.Task;
        Resolve(batch, BatchOutcome.Abort(through));
    }

    private void Resolve(EmittedBatch batch, BatchOutcome outcome)
    {
        batch.Phase = BatchPhase.Resolved;
        unresolved.Remove(batch.Bid);
        resolvedThrough = Math.Max(resolvedThrough, batch.Bid);
        var now = clock.GetUtcNow();
        if (!outcome.Committed)
        {
            aborted[batch.Bid] = (outcome.AbortedThrough, now);
        }

        if (aborted.Count > 64)
        {
            var forgetBefore = now - (2 * settings.TransactionTimeout);
            foreach (var old in aborted.Where(kv => kv.Value.At < forgetBefore).Select(kv => kv.Key).ToList())
            {
                aborted.Remove(old);
            }
        }

        batch.Decided.TrySetResult(outcome);
        batch.Resolved.TrySetResult(outcome);
        if (outcome.Committed)
        {
            batchLatency.Observe(now - batch.EmittedAt);
        }

        AskForTokenIfPactsWait(); // held back while MaxBatchesInFlight were unresolved
    }

    private Task<BatchOutcome> LocalOutcome(long bid)
    {
        if (unresolved.TryGetValue(bid, out var batch))
        {
            return batch.Resolved.Task;
        }

        if (aborted.TryGetValue(bid, out var abort))
        {
            return Task.FromResult(BatchOutcome.Abort(abort.Through));
        }

        if (bid <= logsSawThrough && (firstTracked == 0 || bid < firstTracked) && settings.Logging != Hosting.LoggingMode.None)
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

    private Task<BatchOutcome> LocalDecision(long bid) =>
        unresolved.TryGetValue(bid, out var batch) ? batch.Decided.Task : LocalOutcome(bid);

    /// <summary>How batch <paramref name="bid"/> of coordinator <paramref name="coordinator"/> was decided, once it is.</summary>
    private Task<BatchOutcome> DecisionOf(long bid, string? coordinator) => Ask(bid, coordinator, LocalDecision, coordinators.WaitDecided);

    /// <summary>How batch <paramref name="bid"/> of coordinator <paramref name="coordinator"/> resolved, once it has.</summary>
    private Task<BatchOutcome> OutcomeOf(long bid, string? coordinator) => Ask(bid, coordinator, LocalOutcome, coordinators.WaitResolved);

    // Bid 0 (no batch before) counts as committed; this coordinator's own batches are asked locally.
    private async Task<BatchOutcome> Ask(long bid, string? coordinator, Func<long, Task<BatchOutcome>> local, Func<string, long, Task<BatchOutcome>> remote)
    {
        if (bid == 0 || coordinator is null)
        {
            return BatchOutcome.Commit;
        }

        return coordinator == key ? await local(bid) : await remote(coordinator, bid);
    }
}

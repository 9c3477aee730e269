using Microsoft.Extensions.Logging;
using Snapper.Diagnostics;
using Snapper.Grains;
using Snapper.Protocol;
using Snapper.Configuration;
using Snapper.Scheduling;

namespace Snapper.Coordination;

/// <summary>
/// A coordinator's room for batches that must abort: one PACT with the PACTs that read its writes,
/// a whole batch and the abort cascade it starts (Snapper §4.2.5), and the declaration sweep that
/// aborts a PACT whose declared actor is never called.
/// </summary>
/// <remarks>
/// <para><b>A PACT aborts with its readers only.</b> A PACT that throws (or makes a declaration
/// error) is reported here; every actor it declared is told (<see cref="Protocol.ISnapperParticipant.AbortPact"/>)
/// to skip or end its turn and take its write back, naming the PACTs that read it, which are
/// aborted the same way; the batch decides only once all that is done. Its other PACTs, and the
/// batches after it, are untouched. If an actor could not take the write back (an ACT read it),
/// the whole batch fails and a cascade starts.</para>
/// <para><b>Abort cascade.</b> A PACT whose writes an ACT read (or a failed log write) fails its
/// batch b. The paper aborts every uncommitted batch; here the batches before b are left to commit,
/// and every batch emitted after b up to the point the cascade is <em>sealed</em> aborts, since each
/// may have read b's writes: the coordinator that holds the token next seals the cascade at the
/// token's last bid T (emission pauses while it holds the token), tells the other coordinators T,
/// and each doomed batch aborts once its predecessor has resolved — b with the PACTs' causes, the
/// batches after it because their predecessor's outcome says "aborted through T". Participants roll
/// back the batches from the aborted one through T. When batch T has resolved, nothing of the
/// cascade is left in any schedule, so the token forgets its prevBids and emission resumes; a batch
/// formed after that follows T but is beyond it, so T's outcome does not doom it. A failover ends
/// the cascade of the batches it aborted at its seal (<see cref="Sealed"/>).</para>
/// <para><b>Declaration sweep.</b> A declared actor that is never called would stall its batch,
/// and every later batch on its actors, for ever. While this coordinator has unresolved batches, a
/// timer looks for one that has not completed and could have run for longer than the declaration
/// timeout, asks its stalled participants which PACT it waits for, and aborts that PACT with
/// <see cref="AbortReason.DeclarationError"/> naming it (the whole batch if that PACT's abort is
/// already under way and still stalls it). A batch found held up on an actor by what is ahead of it
/// there (ACTs, an earlier batch) has its time counted afresh.</para>
/// </remarks>
internal sealed class Cascades(string key, IGrainBase grain, SnapperOptions settings, ActorResolver actors, CoordinatorReferences coordinators, TimeProvider clock, ILogger diagnostics)
{
    private const int RollbackAttempts = 5;
    private static readonly TimeSpan RollbackRetry = TimeSpan.FromMilliseconds(100);

    // A healthy actor answers at once; one that does not within this is taken as unresponsive.
    private const long Unresponsive = -2;
    private static readonly TimeSpan UnresponsiveAfter = TimeSpan.FromSeconds(1);

    private TokenRing ring = null!;
    private BatchPipeline pipeline = null!;
    private bool holdsToken;     // holding the token until a cascade this coordinator sealed has ended
    private long ongoingThrough; // T of a cascade sealed anywhere and not known to be over (0: none)
    private IGrainTimer? declarationSweep;

    /// <summary>This coordinator holds the token until the cascade it sealed has ended: no batch is formed.</summary>
    public bool HoldsToken => holdsToken;

    /// <summary>The end T of a cascade sealed anywhere and not known to be over; 0: none.</summary>
    public long OngoingThrough => ongoingThrough;

    /// <summary>A batch here failed: the token, when it comes, seals a cascade.</summary>
    public bool NeedsSeal => pipeline.HasUnsealedFailure;

    public void Connect(TokenRing tokenRing, BatchPipeline batches)
    {
        ring = tokenRing;
        pipeline = batches;
    }

    /// <summary>The token came: a cascade that another coordinator held it for has ended.</summary>
    public void TokenArrived()
    {
        if (!holdsToken)
        {
            ongoingThrough = 0;
        }
    }

    /// <summary>
    /// The token is here and a batch of this coordinator failed: everything emitted so far is in the
    /// cascade. Holds the token (no batch is formed meanwhile) until the cascade has ended.
    /// </summary>
    public void Seal(BatchToken held)
    {
        holdsToken = true;
        var through = held.LastBid;
        ongoingThrough = through;
        pipeline.SealFailed(through);
        ring.TellOthers(c => c.CascadeSealed(through));
        _ = End(held, through, held.LastBidCoordinator);
    }

    /// <summary>
    /// <see cref="ICoordinator.CascadeSealed"/> from the sealing coordinator, or
    /// <see cref="ICoordinator.FailOver"/>: the own failed batches up to <paramref name="through"/> end there.
    /// </summary>
    public void Sealed(long through)
    {
        ongoingThrough = Math.Max(ongoingThrough, through);
        pipeline.SealFailed(through);
    }

    /// <summary>Starts the declaration sweep if it is not running (a batch was formed).</summary>
    public void EnsureDeclarationSweep()
    {
        if (declarationSweep is not null)
        {
            return;
        }

        var period = TimeSpan.FromTicks(Math.Clamp(settings.DeclarationTimeout.Ticks / 4, TimeSpan.FromMilliseconds(10).Ticks, TimeSpan.FromSeconds(1).Ticks));
        declarationSweep = grain.RegisterGrainTimer(SweepDeclarations, period, period);
    }

    private async Task End(BatchToken held, long through, string? throughCoordinator)
    {
        await pipeline.OutcomeOf(through, throughCoordinator); // every batch up to T has resolved

        // No batch of the cascade is left in any schedule: the prevBids in the token point at
        // batches that are committed or gone (§4.2.5).
        held.PrevBid.Clear();
        held.ResolvedThrough = Math.Max(held.ResolvedThrough, through);
        LogMessages.PactCascade(diagnostics, key, through);
        holdsToken = false;
        ongoingThrough = 0;
        ring.Resume();
    }

    private async Task SweepDeclarations()
    {
        if (pipeline.Unresolved == 0)
        {
            declarationSweep?.Dispose();
            declarationSweep = null;
            return;
        }

        // Also while a cascade holds the token: it ends only once every batch up to it has
        // resolved, and a stalled one among them resolves only here. A batch failed now joins the
        // cascade (AbortWholeBatch) or aborts its stalled PACTs alone. Every overdue batch, and
        // every PACT each of its actors waits for, in one sweep: a late answer that makes Orleans
        // drop the first calls of many PACTs at once (their messages expired in a queue) stalls
        // many batches, each on several actors, and one PACT a sweep would keep the ring's commit
        // order waiting for as many sweeps as there are lost calls.
        var overdue = pipeline.Overdue(clock.GetUtcNow(), settings.DeclarationTimeout);
        if (overdue.Count > 0)
        {
            await Task.WhenAll(overdue.Select(Sweep));
        }
    }

    private async Task Sweep(EmittedBatch overdue)
    {
        var pending = overdue.Pending.ToList();
        var waits = await Task.WhenAll(pending.Select(actor => Describe(actor, overdue.Bid)));
        AbortBlocker Stalled(long tid) => AbortBlocker.Batch(pending[Array.FindIndex(waits, w => w.Tid == tid)], overdue.Bid);
        if (Array.Find(waits, w => w.Tid == Unresponsive) is { Description: { } silent })
        {
            // An actor whose activation is going takes no message until the calls running there
            // return, and one of them may wait for this batch: abort it, so those calls can end.
            FailBatch(overdue, 0, new TransactionAbortedException(AbortReason.Cascading, $"aborted with its batch {overdue.Bid}, which was stalled: {silent}") { Blocker = Stalled(Unresponsive) });
            return;
        }

        if (waits.Any(w => w.Tid == LocalSchedule.HeldUp))
        {
            // Queued behind ACTs (which have the transaction timeout) or an earlier batch (which has
            // its own declaration timeout) on some actor, its PACTs may be waiting for that actor:
            // the time it could not run does not count against their declarations.
            overdue.RunnableSince = clock.GetUtcNow();
            return;
        }

        if (Array.Exists(waits, w => w.Tid == LocalSchedule.NotArrived) && Array.TrueForAll(waits, w => w.Tid is 0 or LocalSchedule.NotArrived))
        {
            // Its BatchMsg was lost on the way to an actor (a one-way message that Orleans could not
            // forward to the actor's next activation, say), and no PACT of it waits anywhere.
            FailBatch(overdue, 0, new TransactionAbortedException(AbortReason.Cascading, $"aborted with its batch {overdue.Bid}, which was stalled: {string.Join("; ", waits.Select(w => w.Description))}") { Blocker = Stalled(LocalSchedule.NotArrived) });
            return;
        }

        // Each actor names the PACT whose turn it is: every one of them has waited past its
        // declaration for a call (the PACTs behind them may be waiting for those, so they wait
        // for the next sweep).
        foreach (var (tid, description) in waits.Where(w => w.Tid > 0).DistinctBy(w => w.Tid))
        {
            var stalled = new TransactionAbortedException(
                AbortReason.DeclarationError,
                $"{description} within the declaration timeout of {settings.DeclarationTimeout}") { Tid = tid };
            FailBatch(overdue, overdue.PactFailures?.ContainsKey(tid) == true ? 0 : tid, stalled);
        }
    }

    // What the batch waits for on one actor; Unresponsive if the actor does not say within
    // UnresponsiveAfter (a deactivating activation takes no message while its calls run).
    private async Task<(long Tid, string Description)> Describe(ActorId actor, long bid)
    {
        try
        {
            return await Insistently.Ask(() => actors.Participant(actor).DescribeWait(bid), clock, askFor: UnresponsiveAfter).WaitAsync(UnresponsiveAfter, clock);
        }
        catch (TimeoutException)
        {
            return (Unresponsive, $"actor {actor} did not say what it waits for within {UnresponsiveAfter}");
        }
    }

    /// <summary>
    /// Fails PACT <paramref name="tid"/> of <paramref name="batch"/>, or with 0 the whole batch;
    /// nothing once the batch has decided to commit.
    /// </summary>
    public void FailBatch(EmittedBatch batch, long tid, Exception cause)
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
            _ = pipeline.Commit(batch);
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

        return answer.Undone && (await Task.WhenAll(answer.Readers.Select(reader => AbortReader(reader, tid, actor, cause)))).All(told => told);
    }

    // A PACT read the write of aborted PACT tid: it aborts too, told to its coordinator (answered
    // at once, before the batch of tid decides). False if that coordinator could not be told.
    private async Task<bool> AbortReader(PactRef reader, long tid, ActorId actor, Exception writerAbort)
    {
        var cause = reader.ReadAbortedWrite(tid, actor, writerAbort);
        if (reader.Coordinator == key)
        {
            pipeline.Fail(reader.Bid, reader.Tid, cause);
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
        if (ongoingThrough >= batch.Bid)
        {
            // Emission is paused for a cascade sealed past this batch: it ends there too.
            SealBatch(batch, ongoingThrough);
        }
        else
        {
            ring.Request(); // sealed where the token is (Seal)
        }
    }

    /// <summary>A cascade through <paramref name="through"/> takes failed <paramref name="batch"/>: it aborts once its predecessor has settled.</summary>
    public void SealBatch(EmittedBatch batch, long through)
    {
        batch.SealedThrough = through;
        if (batch.PredecessorSettled)
        {
            _ = AbortBatch(batch);
        }
    }

    // An aborted predecessor's cascade takes this batch, whatever it had decided: a decision to
    // commit that is not yet acknowledged depends on the predecessor's, which will not count.
    /// <summary>An aborted predecessor's cascade (<paramref name="outcome"/>) takes <paramref name="batch"/>.</summary>
    public async Task Doom(EmittedBatch batch, BatchOutcome outcome)
    {
        if (batch.Phase is BatchPhase.Resolved || batch.AbortStarted)
        {
            return;
        }

        batch.CascadeOrigin ??= outcome.Origin;
        batch.InheritedCascade ??= outcome.Cascade;

        batch.Phase = BatchPhase.Aborting;
        batch.SealedThrough = outcome.AbortedThrough;
        await AbortBatch(batch);
    }

    // Rolls the batch back on every participant (and, there, every batch after it through the
    // cascade's end), then resolves it as aborted. Participants answer once they have rolled back,
    // so when the cascade's last batch has resolved no aborted state is left anywhere.
    /// <summary>Rolls <paramref name="batch"/> back everywhere, then resolves it aborted.</summary>
    public async Task AbortBatch(EmittedBatch batch)
    {
        if (batch.AbortStarted || batch.Phase is BatchPhase.Resolved)
        {
            return;
        }

        batch.AbortStarted = true;
        batch.Phase = BatchPhase.Aborting;
        var origin = batch.CascadeOrigin ?? OriginOf(batch);
        var cascade = CascadeOf(batch);
        var causes = new Dictionary<long, Exception>();
        TransactionAbortedException? cascaded = null;
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
            else
            {
                // Taken by its own PACTs' failures, or by an earlier batch's cascade: its PACTs name
                // the batch that failed first.
                causes[tid] = cascaded ??= Aborts.Cascaded(origin, cascade);
            }
        }

        var through = batch.SealedThrough;
        await Task.WhenAll(batch.Participants.Select(actor => RollBack(actor, batch.Bid, through, causes, cascade)));

        // An abort resolves after its predecessor: a batch that follows it may then log its
        // BatchCommit without a dependency, since everything before is durable.
        await batch.PredecessorResolved.Task;
        pipeline.Resolve(batch, BatchOutcome.Abort(through, origin, cascade));
    }

    // What the PACTs of aborting `batch` that did not fail themselves are told, and the batches its
    // cascade takes after it. A cascade that nothing but PACTs giving up late calls started (their
    // writes could not be taken back alone: an ACT read one) was caused by no PACT's own code and
    // no failure: its PACTs run again, as those do. Only while that holds all along: a batch of it
    // that failed for another reason of its own passes on Cascading.
    private static AbortReason CascadeOf(EmittedBatch batch)
    {
        var ownLateCallsOnly = batch.Failure is null && (batch.PactFailures?.Values.All(f => f is TransactionAbortedException { Reason: AbortReason.LateCall }) ?? true);
        var started = batch.InheritedCascade ?? (batch.PactFailures is { Count: > 0 } ? AbortReason.LateCall : AbortReason.Cascading);
        return ownLateCallsOnly && started == AbortReason.LateCall ? AbortReason.LateCall : AbortReason.Cascading;
    }

    // What a cascade that starts from failed batch `batch` names as in the way of the batches it
    // takes: that batch, the PACT that failed in it (if one did) and the actor its failure names.
    private static AbortBlocker OriginOf(EmittedBatch batch)
    {
        var (tid, cause) = batch.PactFailures is { Count: > 0 } failed ? (failed.First().Key, failed.First().Value) : (0L, batch.Failure);
        var actor = (cause as TransactionAbortedException)?.Blocker?.Actor ?? default;
        return new AbortBlocker(actor, BlockedOn.Batch, tid != 0 ? [tid] : [], batch.Bid);
    }

    // Delivered until answered, a few times: an actor that misses it keeps the batch in its
    // schedule, and every later batch there waits behind it. Orleans gives up forwarding a message
    // to an actor that deactivated twice on its way, say.
    private async Task RollBack(ActorId actor, long bid, long through, Dictionary<long, Exception> causes, AbortReason cascade)
    {
        for (var attempt = 1; ; attempt++)
        {
            try
            {
                await Insistently.Ask(() => actors.Participant(actor).OnAbort(bid, through, causes, cascade), clock);
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
    }
}

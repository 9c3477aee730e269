using System.Collections.Immutable;
using Snapper.Diagnostics;
using Snapper.Grains;
using Snapper.Logging;
using Snapper.Coordination;
using Snapper.Protocol;
using Snapper.Scheduling;

namespace Snapper.Pact;

/// <summary>
/// How this actor's batches end (Snapper §4.2.4–4.2.5): BatchCommit, an abort cascade, the abort of
/// one PACT with the PACTs that read its writes, the hand-over to the next activation, and the
/// batches of a silo that departed. Running them is in <c>PactParticipant.cs</c>.
/// </summary>
internal sealed partial class PactParticipant<TState>
{
    /// <summary>
    /// The activation is going: calls still waiting for their turn are sent again by their callers
    /// (<see cref="LocalSchedule.Bounce"/>), and roots waiting for their batch answer now, for their
    /// callers to wait through the next activation (<see cref="AwaitOutcome"/>). The actors that
    /// PACT calls from here wait on are told, so that a call back into this activation, which takes
    /// none until those calls return, gives up (<see cref="State.WaitedCalls"/>).
    /// </summary>
    public void Leave()
    {
        var moving = leaving = new ActorMovingException(Id);
        left?.TrySetResult();
        foreach (var tid in waited.All.Select(w => w.Tid).Distinct().ToList())
        {
            OnStopWaiting(tid, Id); // its calls back into itself give up here
        }

        waited.Bound(Id, services.Clock); // the calls its PACTs make from now on wait a bounded time

        schedule.Bounce(moving);
        foreach (var (tid, (bid, outcome)) in outcomes)
        {
            movedRoots[tid] = bid;
            outcome.TrySetException(moving);
        }

        outcomes.Clear();
    }

    /// <summary>
    /// Actor <paramref name="going"/>, which PACT <paramref name="tid"/> reached, is going: the
    /// PACT's calls from here back into it give up (the PACT aborts), and the notice goes on to the
    /// actors its other calls from here wait on.
    /// </summary>
    public void OnStopWaiting(long tid, ActorId going)
    {
        foreach (var target in waited.Going(tid, going, out _) ?? [])
        {
            Send(target, p => p.StopWaiting(tid, going, TxnMode.Pact));
        }
    }

    // A call of PACT tid to target has just been sent: the going actors the PACT has heard of are
    // named to it too, for the calls it makes from there.
    private void PassOnGoing(long tid, ActorId target)
    {
        if (waited.GoingFor(tid) is { } goingActors)
        {
            foreach (var going in goingActors)
            {
                Send(target, p => p.StopWaiting(tid, going, TxnMode.Pact));
            }
        }
    }

    private void Send(ActorId actor, Func<ISnapperParticipant, Task> message) => services.Resolver.Send(actor, message, services.Diagnostics);

    /// <summary>
    /// A root that moved (<see cref="Leave"/>) is asked how PACT <paramref name="tid"/> of batch
    /// <paramref name="bid"/>, emitted by <paramref name="coordinator"/>, ended: null once it
    /// committed, else the abort.
    /// </summary>
    public async Task<TransactionAbortedException?> AwaitOutcome(long tid, long bid, string coordinator)
    {
        movedRoots[tid] = bid;
        var known = abortedEarly.Remove(tid, out var early) ? Aborts.AbortedBy(tid, early.Cause)
            : schedule.CascadeOf(bid) is { } cascade ? Aborts.Cascaded(tid, bid, cascade)
            : null;
        if (known is not null)
        {
            movedRoots.Remove(tid);
            return known;
        }

        if (!Holds(bid))
        {
            // Not in this activation's chain of batches: it committed or rolled back here before,
            // or it has not arrived yet, or the activation that held it died with its silo and
            // handed nothing over. Only then does a later batch's commit here say nothing of it
            // (the failover may have aborted it), so its coordinator is asked, or the failover.
            return await OutcomeFromCoordinator(tid, bid, coordinator);
        }

        if (leaving is not null)
        {
            throw leaving; // waiting here would hold this activation: the caller asks the next one
        }

        var outcome = new TaskCompletionSource();
        outcomes[tid] = (bid, outcome);
        try
        {
            await outcome.Task;
            movedRoots.Remove(tid);
            return null;
        }
        catch (TransactionAbortedException aborted)
        {
            movedRoots.Remove(tid);
            return aborted;
        }
    }

    private async Task<TransactionAbortedException?> OutcomeFromCoordinator(long tid, long bid, string coordinator)
    {
        // Raced with Leave: the coordinator may need this activation to answer (a rollback of the
        // batch's successors) before it resolves the batch, and a going activation takes no
        // message until this call returns. The caller then asks the next activation.
        var question = services.BatchOutcome(bid, coordinator);
        var gone = (left ??= new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously)).Task;
        if (leaving is not null || await Task.WhenAny(question, gone) == gone)
        {
            throw leaving!;
        }

        var batch = await question;
        movedRoots.Remove(tid);

        // A PACT of a committed batch may have failed alone: its coordinator told every actor it
        // declared, this one among them, before it decided the batch.
        return abortedEarly.Remove(tid, out var early) ? Aborts.AbortedBy(tid, early.Cause)
            : batch.Committed ? null
            : new TransactionAbortedException(batch.Cascade, $"its batch {bid} was aborted (by coordinator {coordinator}, or by the failover of its silo)") { Tid = tid, Blocker = AbortBlocker.Batch(default, bid) };
    }

    // True while batch bid is scheduled here or completed here and not committed.
    private bool Holds(long bid) =>
        schedule.Batches.Any(b => b.Bid == bid) || versions.UncommittedBatches.Any(b => b.Bid == bid);

    public void OnBatch(SubBatch batch)
    {
        if (services.DecidedByFailover(batch.Coordinator, batch.Bid))
        {
            // Late: its coordinator's silo was failed over after sending it (a paused silo wakes up
            // with its sends still queued). The failover decided the batch, and one this actor never
            // completed cannot have committed: it never runs here, and its calls are refused.
            if (!Holds(batch.Bid))
            {
                _ = RefuseLate(batch);
            }

            return;
        }

        if (!schedule.NeverArrived(batch.Bid))
        {
            return; // the second of the BatchMsg and the copy asked for (AskForBatch), or a BatchMsg sent twice
        }

        schedule.Add(batch);
        _ = CommitWhenCommitted(batch.Coordinator, batch.Bid);
    }

    // A call of batch bid came before its BatchMsg (delayed, or lost to a going activation): ask
    // the coordinator for this actor's sub-batch rather than wait for it, and with the call every
    // batch behind it here. A failed question changes nothing: the call waits for the BatchMsg as
    // before, until its deadline or the declaration sweep.
    private async Task AskForBatch(string coordinator, long bid)
    {
        // Asked from inside the call's Enter: the answer is taken in a turn of its own.
        await Task.Yield();
        if (!services.CoordinatorIsActive(coordinator) || services.DecidedByFailover(coordinator, bid))
        {
            return; // a stopping or departed silo's coordinator: its failover decides the batch
        }

        SubBatch? batch;
        try
        {
            batch = await services.Coordinator(coordinator).SubBatchOf(bid, Id);
        }
        catch (Exception e) when (e is TimeoutException or OrleansException) // SiloUnavailableException among them
        {
            return;
        }

        if (batch is not null)
        {
            OnBatch(batch);
        }
    }

    private async Task RefuseLate(SubBatch batch)
    {
        var outcome = await services.BatchOutcome(batch.Bid, batch.Coordinator);
        if (!outcome.Committed && !Holds(batch.Bid))
        {
            AbortDeparted(batch.Bid, batch.Bid, batch.Coordinator);
        }
    }

    // BatchCommit, as this silo learns it (BatchCommits): runs in the actor's grain context. A batch
    // aborted here (its coordinator rolled it back before committing a later one) commits nothing.
    private async Task CommitWhenCommitted(string coordinator, long bid)
    {
        if (await services.BatchCommits.WhenCommitted(coordinator, bid) && !schedule.IsAborted(bid))
        {
            OnBatchCommit(bid);
        }
    }

    public void OnBatchCommit(long bid)
    {
        // Batches commit in bid order, so everything up to bid is committed now.
        versions.CommitBatchesThrough(bid);
        schedule.Committed(bid);
        accesses.Committed(bid);
        foreach (var (tid, (batchId, outcome)) in outcomes.ToList())
        {
            if (batchId <= bid)
            {
                outcomes.Remove(tid);
                outcome.TrySetResult();
            }
        }

        Forget(b => b <= bid);
    }

    /// <summary>
    /// A coordinator aborted batch <paramref name="bid"/> in a cascade that ends at
    /// <paramref name="through"/>: the batches from <paramref name="bid"/> through
    /// <paramref name="through"/> are rolled back here (earlier ones stay: they may still commit),
    /// and the PACTs of them rooted here learn why (<paramref name="failures"/> for those that
    /// failed, <paramref name="cascade"/> for the rest: <see cref="AbortReason.Cascading"/>, or
    /// <see cref="AbortReason.LateCall"/> for a cascade that PACTs giving up late calls started).
    /// </summary>
    public void OnAbort(long bid, long through, IReadOnlyDictionary<long, Exception> failures, AbortReason cascade = AbortReason.Cascading)
    {
        versions.DropBatches(bid, through);
        accesses.Dropped(bid, through);
        if (schedule.AbortRange(bid, through, versions.LastBatch.Bid, cascade))
        {
            working = null;
        }

        foreach (var (tid, movedBid) in movedRoots)
        {
            if (movedBid >= bid && movedBid <= through && !outcomes.ContainsKey(tid))
            {
                abortedEarly.TryAdd(tid, (movedBid, failures.TryGetValue(tid, out var cause) ? cause : Aborts.Cascaded(tid, movedBid, cascade)));
            }
        }

        Forget(b => b >= bid && b <= through);
        foreach (var (tid, (batchId, outcome)) in outcomes.ToList())
        {
            if (batchId < bid || batchId > through)
            {
                continue;
            }

            outcomes.Remove(tid);
            outcome.TrySetException(failures.TryGetValue(tid, out var cause) ? Aborts.AbortedBy(tid, cause) : Aborts.Cascaded(tid, batchId, cascade));
        }
    }

    /// <summary>
    /// Silo <paramref name="silo"/> departed and the surviving coordinators have resolved their
    /// batches: the batches its coordinators emitted that are still here (running, waiting, or
    /// completed and not committed) commit or roll back as the logs decided, in bid order
    /// (docs/architecture.md, "A silo dies").
    /// </summary>
    public async Task ResolveDeparted(string silo)
    {
        var held = versions.UncommittedBatches.Concat(schedule.Batches.Select(b => (b.Bid, b.Coordinator)))
            .Where(b => Protocol.CoordinatorKey.SiloOf(b.Coordinator) == silo)
            .Distinct()
            .OrderBy(b => b.Bid)
            .ToList();
        foreach (var (bid, coordinator) in held)
        {
            var outcome = await services.BatchOutcome(bid, coordinator);
            if (outcome.Committed)
            {
                OnBatchCommit(bid);
                continue;
            }

            AbortDeparted(bid, outcome.AbortedThrough, coordinator);
        }
    }

    // The failover aborted the batches from bid (emitted by a departed coordinator) to through.
    private void AbortDeparted(long bid, long through, string coordinator)
    {
        var cause = new TransactionAbortedException(
            AbortReason.Failure,
            $"its batch {bid} was emitted by coordinator {coordinator}, whose silo left the cluster before the batch committed");
        var failures = outcomes.Where(o => o.Value.Bid >= bid && o.Value.Bid <= through).ToDictionary(o => o.Key, _ => (Exception)cause);
        OnAbort(bid, through, failures);
    }

    /// <summary>
    /// The activation is going and no call runs here: the schedule, the states of the batches
    /// completed here and not committed, and the running batch's working copy, for the next
    /// activation (<see cref="Resume"/>). Null when no batch is here.
    /// </summary>
    public PactHandover? HandOver()
    {
        if (!HasUncommittedBatches && movedRoots.Count == 0 && versions.LastCommittedBid == 0)
        {
            return null;
        }

        var completed = versions.UncommittedStates
            .Select(v => new BatchState(v.Bid, v.Coordinator, v.Version, v.State is null ? null : services.Serializer.Serialize(v.State)))
            .ToImmutableArray();
        var schedule = this.schedule.HandOver();
        var running = working is null || schedule.Running is null ? null : new BatchState(schedule.Running.Bid, schedule.Running.Coordinator, workingVersion, services.Serializer.Serialize(working));
        return new PactHandover(schedule, completed, running)
        {
            Actions = [.. pendingActions.Select(p => (p.Key, p.Value.ToImmutableArray()))],
            LastCommittedBid = versions.LastCommittedBid,
            MovedRoots = [.. movedRoots.Select(m => (m.Key, m.Value))],
            AbortedEarly = [.. abortedEarly.Select(a => (a.Key, a.Value.Bid, a.Value.Cause))],
        };
    }

    /// <summary>
    /// This activation follows one that handed its batches over (<see cref="HandOver"/>): they go on
    /// here. A PACT of one of them that aborts cannot be taken back alone any more (who read its
    /// write is not known here), so the whole batch aborts with it.
    /// </summary>
    public void Resume(PactHandover handover)
    {
        versions.CommittedThroughBid(handover.LastCommittedBid);
        foreach (var (tid, bid) in handover.MovedRoots)
        {
            movedRoots[tid] = bid;
        }

        foreach (var (tid, bid, cause) in handover.AbortedEarly)
        {
            abortedEarly.TryAdd(tid, (bid, cause));
        }

        foreach (var (bid, actions) in handover.Actions)
        {
            pendingActions[bid] = [.. actions];
        }

        foreach (var batch in handover.Completed)
        {
            versions.BatchCompleted(batch.Bid, batch.Coordinator, batch.State is null ? null : services.Serializer.Deserialize<TState>(batch.State), batch.Version);
            handedOver.Add(batch.Bid);
            _ = CommitWhenCommitted(batch.Coordinator, batch.Bid);
        }

        schedule.Resume(handover.Schedule, () =>
        {
            if (handover.Working is { State: { } state } running)
            {
                working = services.Serializer.Deserialize<TState>(state);
                workingVersion = running.Version;
            }
        });

        foreach (var batch in handover.Schedule.Batches)
        {
            handedOver.Add(batch.Bid);
            _ = CommitWhenCommitted(batch.Coordinator, batch.Bid);
        }
    }

    public (long Tid, string Description) DescribeWait(long bid) =>
        (schedule.IsHeldUp(bid) ? LocalSchedule.HeldUp : schedule.NeverArrived(bid) ? LocalSchedule.NotArrived : schedule.CurrentPact(bid), schedule.DescribeWait(bid));

    /// <summary>
    /// PACT <paramref name="tid"/> of batch <paramref name="bid"/> aborted (coordinator → every actor
    /// it declared): skip or end its turn here and take back its write, with every PACT that read it
    /// (named in the answer, to be aborted too). Its root tells its caller here.
    /// </summary>
    public async Task<PactAbortAnswer> AbortPact(long bid, long tid, Exception cause)
    {
        if (outcomes.Remove(tid, out var rooted))
        {
            rooted.Outcome.TrySetException(Aborts.AbortedBy(tid, cause));
        }
        else
        {
            abortedEarly.TryAdd(tid, (bid, cause)); // in case its root call has yet to arrive here
        }

        var standing = schedule.AbortPact(bid, tid, cause, out var pact);
        if (handedOver.Contains(bid) && !schedule.IsAborted(bid) && bid > versions.LastCommittedBid)
        {
            if (standing == PactStanding.Running)
            {
                await pact!.TurnEnded!.Task;
            }

            return PactAbortAnswer.NotUndone; // its write may be in a handed-over state: the batch aborts
        }

        switch (standing)
        {
            case PactStanding.Running:
                await pact!.TurnEnded!.Task; // its write was taken back when its turn ended
                return PactAbortAnswer.Clean;
            case PactStanding.TurnEnded or PactStanding.BatchCompleted:
                return await TakeBackAndLog(tid, cause);
            default:
                return PactAbortAnswer.Clean;
        }
    }

    // Takes back an aborted PACT's write here, and with it every access made after it, then logs
    // the completed batches whose state changed, so recovery finds them without it.
    private async Task<PactAbortAnswer> TakeBackAndLog(long tid, Exception cause)
    {
        var (answer, changed) = TakeBack(tid, cause);
        if (logger is not null)
        {
            foreach (var (bid, coordinator, state, version) in changed)
            {
                try
                {
                    // Whole: the versions before it may have changed with it.
                    await logger.Append(new BatchCompleteRecord(bid, Id, coordinator, versions.LogForm.Encode(services.Serializer, null, state).State) { Version = version });
                }
                catch (Exception e)
                {
                    LogMessages.UndoNotLogged(services.Diagnostics, e, Id, tid, bid);
                    return PactAbortAnswer.NotUndone; // the logged state keeps its write: the whole batch aborts
                }
            }
        }

        return answer;
    }

    private (PactAbortAnswer Answer, List<(long Bid, string Coordinator, TState State, long Version)> Changed) TakeBack(long tid, Exception cause)
    {
        foreach (var actions in pendingActions.Values)
        {
            actions.RemoveAll(a => a.Tid == tid); // its coordinator drops those already sent
        }

        if (accesses.TakeBack(tid, versions.ActReads) is not { } write)
        {
            return (PactAbortAnswer.Clean, []); // it wrote nothing here, or that was taken back already
        }

        if (write.ReadByAct)
        {
            return (PactAbortAnswer.NotUndone, []);
        }

        List<(long, string, TState, long)> changed = [];
        if (schedule.Running is { } running && running.Bid == write.Bid)
        {
            working = write.Before?.Restore(services.Serializer); // null: back to the state the batch started from
        }
        else
        {
            changed = versions.TakeBackFrom(write.Bid, write.Before?.Restore(services.Serializer));
            working = null; // the running batch's writers all read it: they abort
        }

        // Readers in the running batch stop here now; the others learn it from their coordinators.
        foreach (var reader in write.Readers)
        {
            if (schedule.Running is { } batch && batch.Bid == reader.Bid)
            {
                schedule.AbortPact(reader.Bid, reader.Tid, reader.ReadAbortedWrite(tid, Id, cause), out _);
            }
        }

        return (new PactAbortAnswer(true, write.Readers), changed);
    }

    private void Forget(Func<long, bool> resolved)
    {
        completion.Forget(resolved);
        served.Forget(resolved);
        if (pendingActions.Count > 0)
        {
            foreach (var bid in pendingActions.Keys.Where(resolved).ToList())
            {
                pendingActions.Remove(bid);
            }
        }

        if (abortedEarly.Count == 0)
        {
            return; // the usual case, on every BatchCommit
        }

        foreach (var tid in abortedEarly.Where(a => resolved(a.Value.Bid) && !movedRoots.ContainsKey(a.Key)).Select(a => a.Key).ToList())
        {
            abortedEarly.Remove(tid);
        }
    }
}

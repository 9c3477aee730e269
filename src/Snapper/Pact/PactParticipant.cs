using System.Collections.Immutable;
using Snapper.Act;
using Snapper.Diagnostics;
using Snapper.Grains;
using Snapper.Logging;
using Snapper.State;

namespace Snapper.Pact;

/// <summary>
/// The PACT engine of one transactional actor (Snapper §4.2.3–4.2.4): runs calls in the order of
/// its <see cref="LocalSchedule"/>, keeps one state version per uncommitted batch so batches can run
/// speculatively, logs the state a batch leaves before reporting BatchComplete, and applies
/// BatchCommit and abort cascades.
/// </summary>
/// <remarks>
/// <para>State versions (<see cref="StateVersions{TState}"/>, shared with the ACT engine): committed ←
/// the states left by completed but uncommitted batches, oldest first ← the running batch's
/// working copy, made at its first write. A batch therefore never mutates a version a commit
/// still needs.</para>
/// <para>A PACT that aborts takes back its own writes and the PACTs that read them
/// (docs/architecture.md, "A PACT aborts alone"): the <see cref="PactAccessLog{TState}"/> keeps each
/// PACT's first write with the state before it (a copy for a PACT writing after another in the
/// running batch) and who accessed the state after it. Taking a write back restores that state,
/// here and in every completed batch built on it (logged again), and names the PACTs that read it
/// to the coordinator, which aborts them too. Only a write an ACT has read makes
/// <see cref="AbortPact"/> say so, and the coordinator abort the whole batch.</para>
/// </remarks>
internal sealed class PactParticipant<TState>
    where TState : class
{
    private readonly SnapperRuntime runtime;
    private readonly StateVersions<TState> versions;
    private readonly LogWriter? logger;
    private readonly LocalSchedule schedule;
    private readonly Dictionary<long, (long Bid, TaskCompletionSource Outcome)> outcomes = new();

    // Failures of PACTs reported to their coordinators, by bid: BatchComplete is sent only once they
    // arrived, so a coordinator never decides a batch before it knows a PACT of it failed.
    private readonly Dictionary<long, Task> failureReports = new();

    // PACTs rooted here that aborted before their root call registered its outcome, by tid.
    private readonly Dictionary<long, (long Bid, Exception Cause)> abortedEarly = new();
    private readonly PactAccessLog<TState> accesses = new();

    // Batches an earlier activation handed over (Resume): their accesses before that are not known here.
    private readonly HashSet<long> handedOver = new();

    // PACTs rooted here whose caller waits for the outcome through AwaitOutcome (their root call
    // answered when an activation went), by tid, with their bid: how they end is kept until asked.
    private readonly Dictionary<long, long> movedRoots = new();
    private ActorMovingException? leaving; // set by Leave: this activation is going
    private TaskCompletionSource? left;     // completed by Leave, for waits that must not hold the activation
    private TState? working;
    private long workingVersion; // the version the running batch's writes become: one more than what it copied
    private TState? workingBase; // what working was copied from (version workingVersion - 1): a delta is logged against it

    public PactParticipant(ActorId id, SnapperRuntime runtime, StateVersions<TState> versions, LocalSchedule schedule)
    {
        Id = id;
        this.runtime = runtime;
        this.versions = versions;
        this.schedule = schedule;
        logger = runtime.Loggers.For(id);
        schedule.Started += _ => working = null;
        schedule.Completed += OnCompleted;
        schedule.AbortedTurnEnded += pact => TakeBack(pact.Tid); // in its own turn: nobody read its writes
    }

    public ActorId Id { get; }

    internal LocalSchedule Schedule => schedule;

    /// <summary>True while any batch is scheduled here or not yet committed.</summary>
    public bool HasUncommittedBatches => schedule.HasBatches || versions.HasUncommitted;


    public TState GetState(TxnContext ctx, AccessMode mode)
    {
        if (schedule.CurrentTurn(ctx.Bid) is not { } pact || pact.Tid != ctx.Tid)
        {
            throw new SnapperException($"GetState on {Id} with the context of {ctx} outside that PACT's turn on {Id}; a PACT reaches an actor only through CallActor.");
        }

        if (pact.AbortedBy is not null)
        {
            throw pact.Refusal();
        }

        if (mode == AccessMode.ReadWrite && !pact.Wrote)
        {
            // Its first write in this batch: remember what to go back to if it aborts.
            StateBeforeWrite<TState>? before = null;
            if (working is null)
            {
                var (latest, version) = versions.ReadLatest();
                workingVersion = version + 1;
                workingBase = latest;
                working = runtime.Serializer.Copy(latest);
            }
            else
            {
                before = StateBeforeWrite<TState>.Of(runtime.Serializer, workingBase, working);
            }

            pact.Accessed = pact.Wrote = true;
            accesses.Write(new PactRef(ctx.Tid, ctx.Bid, ctx.Coordinator!), before, versions.ActReads);
        }
        else if (!pact.Accessed)
        {
            pact.Accessed = true;
            accesses.Read(new PactRef(ctx.Tid, ctx.Bid, ctx.Coordinator!), versions.ActReads);
        }

        return working ?? versions.ReadLatest().State;
    }

    /// <summary>A nested call within the PACT: an ordinary grain call, which the callee runs in its schedule.</summary>
    public async Task<TResult> CallActor<TActor, TResult>(TxnContext ctx, ActorId target, Func<TActor, Task<TResult>> call)
        where TActor : ITransactionalActor
    {
        ArgumentNullException.ThrowIfNull(call);
        var (callee, outer) = BeginCall<TActor>(target);
        try
        {
            while (true)
            {
                try
                {
                    return await call(callee);
                }
                catch (ActorMovingException) when (runtime.Clock.GetUtcNow() < ctx.Deadline)
                {
                    // The callee's activation went before the call started there: the next one takes it.
                }
            }
        }
        catch (Exception e) when (FailedCall(ctx, e))
        {
            throw; // never reached: the filter aborts the PACT and lets the exception pass uncaught
        }
        finally
        {
            ExecutionInfoSink.Value = outer;
        }
    }

    /// <summary>The same for a method without a result, with no adapter frame between the call and the user's code.</summary>
    public async Task CallActor<TActor>(TxnContext ctx, ActorId target, Func<TActor, Task> call)
        where TActor : ITransactionalActor
    {
        ArgumentNullException.ThrowIfNull(call);
        var (callee, outer) = BeginCall<TActor>(target);
        try
        {
            while (true)
            {
                try
                {
                    await call(callee);
                    return;
                }
                catch (ActorMovingException) when (runtime.Clock.GetUtcNow() < ctx.Deadline)
                {
                    // The callee's activation went before the call started there: the next one takes it.
                }
            }
        }
        catch (Exception e) when (FailedCall(ctx, e))
        {
            throw; // never reached: the filter aborts the PACT and lets the exception pass uncaught
        }
        finally
        {
            ExecutionInfoSink.Value = outer;
        }
    }

    // The callee, and the sink to restore after the call: a PACT's callee reports no execution info.
    private (TActor Callee, ExecutionInfo? OuterSink) BeginCall<TActor>(ActorId target)
        where TActor : ITransactionalActor
    {
        var callee = runtime.Resolver.Get<TActor>(target);
        var outer = ExecutionInfoSink.Value;
        ExecutionInfoSink.Value = ExecutionInfoSink.PactCall;
        return (callee, outer);
    }

    // Whether or not the body catches it, a failed call aborts the PACT: in its turn here too, so
    // the batch cannot complete here with its writes before the coordinator knows. An exception
    // filter (always false), so the exception is not caught and thrown again.
    private bool FailedCall(TxnContext ctx, Exception e)
    {
        schedule.AbortInTurn(ctx, e);
        Fail(ctx, e);
        return false;
    }

    /// <summary>
    /// The root of PACT <paramref name="ctx"/>: runs its first call (<paramref name="invoke"/>),
    /// then waits for its batch to commit or abort (Snapper §4.2.4). Throws
    /// <see cref="TransactionAbortedException"/> if the batch aborted. Returns true if this
    /// activation is going before then: the caller then waits through <see cref="AwaitOutcome"/>.
    /// </summary>
    public async Task<bool> RunPactAsRoot(TxnContext ctx, Func<Task> invoke)
    {
        var started = runtime.Clock.GetTimestamp();
        // Set only in this actor's turns (BatchCommit, an abort), so what follows the await below
        // may run inline there instead of as one more work item for this grain: it only records
        // the outcome and answers the caller.
        var outcome = new TaskCompletionSource();
        outcomes[ctx.Tid] = (ctx.Bid, outcome);
        using var span = SnapperTracing.StartTransaction(ctx);
        var execute = SnapperTracing.StartPhase(SnapperTracing.Execute);
        try
        {
            await InvokePact(ctx, invoke);
        }
        catch (ActorMovingException)
        {
            outcomes.Remove(ctx.Tid); // not started here: the client sends it to the next activation
            throw;
        }
        catch
        {
            // Reported to the ring by InvokePact; the outcome below says how the batch ended.
        }
        finally
        {
            execute?.Dispose();
        }

        if (schedule.IsAborted(ctx.Bid))
        {
            // The batch was aborted before this root got to run (its outcome was not registered
            // yet when the cascade came by).
            outcomes.Remove(ctx.Tid);
            outcome.TrySetException(Cascaded(ctx.Tid));
        }
        else if (abortedEarly.Remove(ctx.Tid, out var early))
        {
            outcomes.Remove(ctx.Tid);
            outcome.TrySetException(ActCommitCoordinator.AbortedBy(ctx.Tid, early.Cause));
        }

        if (leaving is not null && outcomes.Remove(ctx.Tid))
        {
            // This activation began to go while the root call ran: its outcome would be set by
            // messages that wait for this call to return. The caller asks the next activation.
            movedRoots[ctx.Tid] = ctx.Bid;
            outcome.TrySetException(leaving);
        }

        var batchCommit = SnapperTracing.StartPhase(SnapperTracing.BatchCommit);
        try
        {
            await outcome.Task;
            batchCommit?.Dispose();
            runtime.Metrics.Committed(TxnMode.Pact, runtime.Clock.GetElapsedTime(started));
            SnapperTracing.Committed(span);
            return false;
        }
        catch (ActorMovingException)
        {
            batchCommit?.Dispose();
            return true; // this activation is going: the caller asks the next one (AwaitOutcome)
        }
        catch (TransactionAbortedException aborted)
        {
            batchCommit?.Dispose();
            runtime.Metrics.Aborted(TxnMode.Pact, aborted.Reason, runtime.Clock.GetElapsedTime(started));
            SnapperTracing.Aborted(span, aborted);
            throw;
        }
    }

    /// <summary>A call of PACT <paramref name="ctx"/> arrives here: wait for its turn in the local schedule, run it (<paramref name="invoke"/>), count it out.</summary>
    public async Task InvokePact(TxnContext ctx, Func<Task> invoke)
    {
        if (ctx.Declared is not { } declared || declared.CallsOn(Id) == 0)
        {
            var undeclared = new TransactionAbortedException(AbortReason.DeclarationError, $"PACT {ctx.Tid} called actor {Id}, which its declaration does not name") { Tid = ctx.Tid };
            Fail(ctx, undeclared);
            throw undeclared;
        }

        try
        {
            await schedule.Enter(ctx);
        }
        catch (TransactionAbortedException e)
        {
            Fail(ctx, e);
            throw;
        }

        try
        {
            await invoke();
        }
        catch (Exception e)
        {
            // The actor that catches a PACT's exception detects its abort (§4.2.4). Its turn here
            // ends with its writes undone before the call counts as done, and the batch reports
            // BatchComplete only once the coordinator has the failure.
            schedule.AbortInTurn(ctx, e);
            Fail(ctx, e);
            throw;
        }
        finally
        {
            schedule.Exit(ctx);
        }
    }

    /// <summary>
    /// The activation is going: calls still waiting for their turn are sent again by their callers
    /// (<see cref="LocalSchedule.Bounce"/>), and roots waiting for their batch answer now, for their
    /// callers to wait through the next activation (<see cref="AwaitOutcome"/>).
    /// </summary>
    public void Leave()
    {
        var moving = leaving = new ActorMovingException(Id);
        left?.TrySetResult();
        schedule.Bounce(moving);
        foreach (var (tid, (bid, outcome)) in outcomes)
        {
            movedRoots[tid] = bid;
            outcome.TrySetException(moving);
        }

        outcomes.Clear();
    }

    /// <summary>
    /// A root that moved (<see cref="Leave"/>) is asked how PACT <paramref name="tid"/> of batch
    /// <paramref name="bid"/>, emitted by <paramref name="coordinator"/>, ended: null once it
    /// committed, else the abort.
    /// </summary>
    public async Task<TransactionAbortedException?> AwaitOutcome(long tid, long bid, string coordinator)
    {
        movedRoots[tid] = bid;
        var known = abortedEarly.Remove(tid, out var early) ? ActCommitCoordinator.AbortedBy(tid, early.Cause)
            : schedule.IsAborted(bid) ? Cascaded(tid)
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
        var question = runtime.BatchOutcome(bid, coordinator);
        var gone = (left ??= new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously)).Task;
        if (leaving is not null || await Task.WhenAny(question, gone) == gone)
        {
            throw leaving!;
        }

        var batch = await question;
        movedRoots.Remove(tid);

        // A PACT of a committed batch may have failed alone: its coordinator told every actor it
        // declared, this one among them, before it decided the batch.
        return abortedEarly.Remove(tid, out var early) ? ActCommitCoordinator.AbortedBy(tid, early.Cause)
            : batch.Committed ? null
            : new TransactionAbortedException(AbortReason.Cascading, $"its batch {bid} was aborted (by coordinator {coordinator}, or by the failover of its silo)") { Tid = tid };
    }

    // True while batch bid is scheduled here or completed here and not committed.
    private bool Holds(long bid) =>
        schedule.Batches.Any(b => b.Bid == bid) || versions.UncommittedBatches.Any(b => b.Bid == bid);

    public void OnBatch(SubBatch batch)
    {
        schedule.Add(batch);
        _ = CommitWhenCommitted(batch.Coordinator, batch.Bid);
    }

    // BatchCommit, as this silo learns it (BatchCommits): runs in the actor's grain context. A batch
    // aborted here (its coordinator rolled it back before committing a later one) commits nothing.
    private async Task CommitWhenCommitted(string coordinator, long bid)
    {
        if (await runtime.BatchCommits.WhenCommitted(coordinator, bid) && !schedule.IsAborted(bid))
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
    /// failed, <see cref="AbortReason.Cascading"/> for the rest).
    /// </summary>
    public void OnAbort(long bid, long through, IReadOnlyDictionary<long, Exception> failures)
    {
        versions.DropBatches(bid, through);
        accesses.Dropped(bid, through);
        if (schedule.AbortRange(bid, through, versions.LastBatch.Bid))
        {
            working = null;
        }

        foreach (var (tid, movedBid) in movedRoots)
        {
            if (movedBid >= bid && movedBid <= through && !outcomes.ContainsKey(tid))
            {
                abortedEarly.TryAdd(tid, (movedBid, failures.TryGetValue(tid, out var cause) ? cause : Cascaded(tid)));
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
            outcome.TrySetException(failures.TryGetValue(tid, out var cause) ? ActCommitCoordinator.AbortedBy(tid, cause) : Cascaded(tid));
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
            .Where(b => Coordination.CoordinatorKey.SiloOf(b.Coordinator) == silo)
            .Distinct()
            .OrderBy(b => b.Bid)
            .ToList();
        foreach (var (bid, coordinator) in held)
        {
            var outcome = await runtime.BatchOutcome(bid, coordinator);
            if (outcome.Committed)
            {
                OnBatchCommit(bid);
                continue;
            }

            var cause = new TransactionAbortedException(
                AbortReason.Failure,
                $"its batch {bid} was emitted by coordinator {coordinator}, whose silo left the cluster before the batch committed");
            var failures = outcomes.Where(o => o.Value.Bid >= bid && o.Value.Bid <= outcome.AbortedThrough).ToDictionary(o => o.Key, _ => (Exception)cause);
            OnAbort(bid, outcome.AbortedThrough, failures);
        }
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
            .Select(v => new BatchState(v.Bid, v.Coordinator, v.Version, v.State is null ? null : runtime.Serializer.Serialize(v.State)))
            .ToImmutableArray();
        var schedule = this.schedule.HandOver();
        var running = working is null || schedule.Running is null ? null : new BatchState(schedule.Running.Bid, schedule.Running.Coordinator, workingVersion, runtime.Serializer.Serialize(working));
        return new PactHandover(schedule, completed, running)
        {
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

        foreach (var batch in handover.Completed)
        {
            versions.BatchCompleted(batch.Bid, batch.Coordinator, batch.State is null ? null : runtime.Serializer.Deserialize<TState>(batch.State), batch.Version);
            handedOver.Add(batch.Bid);
            _ = CommitWhenCommitted(batch.Coordinator, batch.Bid);
        }

        schedule.Resume(handover.Schedule);
        if (handover.Working is { State: { } state } running)
        {
            working = runtime.Serializer.Deserialize<TState>(state);
            workingVersion = running.Version;
        }

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
            rooted.Outcome.TrySetException(ActCommitCoordinator.AbortedBy(tid, cause));
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
                return await TakeBackAndLog(tid);
            default:
                return PactAbortAnswer.Clean;
        }
    }

    // Takes back an aborted PACT's write here, and with it every access made after it, then logs
    // the completed batches whose state changed, so recovery finds them without it.
    private async Task<PactAbortAnswer> TakeBackAndLog(long tid)
    {
        var (answer, changed) = TakeBack(tid);
        if (logger is not null)
        {
            foreach (var (bid, coordinator, state, version) in changed)
            {
                try
                {
                    // Whole: the versions before it may have changed with it.
                    await logger.Append(new BatchCompleteRecord(bid, Id, coordinator, versions.LogForm.Encode(runtime.Serializer, null, state).State) { Version = version });
                }
                catch (Exception e)
                {
                    LogMessages.UndoNotLogged(runtime.Diagnostics, e, Id, tid, bid);
                    return PactAbortAnswer.NotUndone; // the logged state keeps its write: the whole batch aborts
                }
            }
        }

        return answer;
    }

    private (PactAbortAnswer Answer, List<(long Bid, string Coordinator, TState State, long Version)> Changed) TakeBack(long tid)
    {
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
            working = write.Before?.Restore(runtime.Serializer); // null: back to the state the batch started from
        }
        else
        {
            changed = versions.TakeBackFrom(write.Bid, write.Before?.Restore(runtime.Serializer));
            working = null; // the running batch's writers all read it: they abort
        }

        // Readers in the running batch stop here now; the others learn it from their coordinators.
        foreach (var reader in write.Readers)
        {
            if (schedule.Running is { } batch && batch.Bid == reader.Bid)
            {
                schedule.AbortPact(reader.Bid, reader.Tid, reader.ReadAbortedWrite(tid), out _);
            }
        }

        return (new PactAbortAnswer(true, write.Readers), changed);
    }

    private void OnCompleted(SubBatch batch)
    {
        var written = working;
        var builtFrom = workingBase;
        working = workingBase = null;
        versions.BatchCompleted(batch.Bid, batch.Coordinator, written, workingVersion);
        var (state, delta) = written is null || logger is null ? (ReadOnlyMemory<byte>.Empty, false) : versions.LogForm.Encode(runtime.Serializer, builtFrom, written);
        ReportCompleted(batch, state, delta, workingVersion);
    }

    // BatchComplete once the state this batch left is durable (write-ahead: before the coordinator
    // may commit), straight from the logger's flush loop without coming back into this grain.
    // Sooner still when the batch's coordinator is on this silo and writes the same log: then it
    // goes as soon as the record is queued, with its place in the log, and the coordinator's
    // BatchCommit, queued behind it, fails if it was not written.
    private void ReportCompleted(SubBatch batch, ReadOnlyMemory<byte> state, bool delta, long version)
    {
        if (failureReports.Remove(batch.Bid, out var reported))
        {
            _ = ReportCompletedAfter(reported, batch, state, delta, version);
            return;
        }

        if (logger is null || state.IsEmpty)
        {
            SendBatchComplete(runtime, batch, Id);
            return;
        }

        var report = new CompletionReport(runtime, batch, Id, early: ReferenceEquals(runtime.Loggers.ForCoordinator(batch.Coordinator), logger));
        report.Sequenced(logger.AppendSequenced(new BatchCompleteRecord(batch.Bid, Id, batch.Coordinator, state) { Version = version, Delta = delta }, report.WhenWritten));
    }

    // A batch's BatchComplete from here, once its record is in the log. Early (the coordinator is on
    // this silo and writes the same log), it is posted with the record's sequence number as soon as
    // that is known; otherwise, or if the coordinator's queue is closed (it is stopping), it goes
    // once the record is written. Sequenced and WhenWritten may come in either order: the flush
    // loop runs on another thread.
    private sealed class CompletionReport(SnapperRuntime runtime, SubBatch batch, ActorId actor, bool early)
    {
        private readonly Lock gate = new();
        private bool sendWhenWritten;
        private bool written;

        public void Sequenced(long sequence)
        {
            if (!early || !runtime.Inboxes.TryPost(batch.Coordinator, Coordination.CoordinatorMail.BatchComplete(batch.Bid, actor, sequence)))
            {
                Arrive(sequenced: true);
            }
        }

        public void WhenWritten(Exception? failure)
        {
            if (failure is not null)
            {
                _ = FailBatchHere(runtime, batch, actor, failure); // an early one's BatchCommit fails too, if it was decided
                return;
            }

            Arrive(sequenced: false);
        }

        // BatchComplete goes once it was not posted early and the record is written, from whichever came second.
        private void Arrive(bool sequenced)
        {
            lock (gate)
            {
                sendWhenWritten |= sequenced;
                written |= !sequenced;
                if (!sendWhenWritten || !written)
                {
                    return;
                }
            }

            SendBatchComplete(runtime, batch, actor);
        }
    }

    // A PACT of the batch failed here: the coordinator hears of it before the batch's BatchComplete.
    private async Task ReportCompletedAfter(Task reported, SubBatch batch, ReadOnlyMemory<byte> state, bool delta, long version)
    {
        try
        {
            if (logger is not null && !state.IsEmpty)
            {
                await logger.Append(new BatchCompleteRecord(batch.Bid, Id, batch.Coordinator, state) { Version = version, Delta = delta });
            }

            await reported;
        }
        catch (Exception e)
        {
            await FailBatchHere(runtime, batch, Id, e);
            return;
        }

        SendBatchComplete(runtime, batch, Id);
    }

    private static void SendBatchComplete(SnapperRuntime runtime, SubBatch batch, ActorId actor)
    {
        if (!runtime.Inboxes.TryPost(batch.Coordinator, Coordination.CoordinatorMail.BatchComplete(batch.Bid, actor)))
        {
            _ = SendBatchCompleteCall(runtime, batch, actor); // its coordinator is on another silo
        }
    }

    private static async Task SendBatchCompleteCall(SnapperRuntime runtime, SubBatch batch, ActorId actor)
    {
        try
        {
            await runtime.Coordinator(batch.Coordinator).BatchComplete(batch.Bid, actor);
        }
        catch (Exception e)
        {
            await FailBatchHere(runtime, batch, actor, e);
        }
    }

    private static Task FailBatchHere(SnapperRuntime runtime, SubBatch batch, ActorId actor, Exception e) =>
        runtime.Coordinator(batch.Coordinator).Fail(batch.Bid, 0, new TransactionAbortedException(AbortReason.Failure, $"actor {actor} could not log the state of batch {batch.Bid}: {e.Message}", e));

    // Whatever the exception says, only the schedule knows whether this batch is being aborted: a
    // body may throw (or let escape) an exception whose reason is Cascading while its own batch is
    // fine, and that PACT must still abort. Reporting a batch a cascade already aborts is harmless.
    private void Fail(TxnContext ctx, Exception failure)
    {
        if (schedule.IsAborted(ctx.Bid))
        {
            return; // this actor has already taken the batch's abort
        }

        var report = runtime.Coordinator(ctx.Coordinator!).Fail(ctx.Bid, ctx.Tid, failure);
        failureReports[ctx.Bid] = failureReports.TryGetValue(ctx.Bid, out var earlier) ? Task.WhenAll(earlier, report) : report;
    }

    private void Forget(Func<long, bool> resolved)
    {
        if (failureReports.Count == 0 && abortedEarly.Count == 0)
        {
            return; // the usual case, on every BatchCommit
        }

        foreach (var bid in failureReports.Keys.Where(resolved).ToList())
        {
            failureReports.Remove(bid);
        }

        foreach (var tid in abortedEarly.Where(a => resolved(a.Value.Bid) && !movedRoots.ContainsKey(a.Key)).Select(a => a.Key).ToList())
        {
            abortedEarly.Remove(tid);
        }
    }

    private static TransactionAbortedException Cascaded(long tid) =>
        new(AbortReason.Cascading, "aborted with the batches after another PACT that aborted") { Tid = tid };
}

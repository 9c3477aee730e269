using System.Collections.Immutable;
using Snapper.Diagnostics;
using Snapper.Grains;
using Snapper.Logging;
using Snapper.State;
using Snapper.Coordination;
using Snapper.Protocol;
using Snapper.Scheduling;

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
internal sealed partial class PactParticipant<TState> : IPactSide, ITransactionEngine<TState>
    where TState : class
{
    private readonly PactServices services;
    private readonly StateVersions<TState> versions;
    private readonly LogWriter? logger;
    private readonly LocalSchedule schedule;
    private readonly Dictionary<long, (long Bid, TaskCompletionSource Outcome)> outcomes = new();

    private readonly BatchCompletion completion;

    // PACTs rooted here that aborted before their root call registered its outcome, by tid.
    private readonly Dictionary<long, (long Bid, Exception Cause)> abortedEarly = new();
    private readonly PactAccessLog<TState> accesses = new();

    // PACTs rooted here, by tid: the calls their bodies made from this actor beyond the declaration
    // (each refused at once). All of them go back with the abort, so a promoted run learns at once
    // what parallel calls a run missed, not one per run. A refused call aborts its PACT, so the
    // entry goes when the root hears the abort (or with this activation).
    private readonly Dictionary<long, AccessSet> refusedFromRoot = new();

    // PACTs rooted here whose body runs, by tid: the calls made from this actor to each declared
    // actor (in declaration order). When the body returns, an actor called fewer times than
    // declared is released (ReleasePact). Only for PACTs that declare an actor besides the root.
    private readonly Dictionary<long, int[]> callsFromRoot = new();

    // After-commit actions registered here by PACTs of batches not completed here yet, by bid: they
    // go to the coordinator with the batch's BatchComplete, which logs those of the PACTs that
    // did not abort with its BatchCommit. A PACT that aborts alone takes its own with it.
    private readonly Dictionary<long, List<AfterCommitAction>> pendingActions = new();

    // Batches an earlier activation handed over (Resume): their accesses before that are not known here.
    private readonly HashSet<long> handedOver = new();

    // PACTs rooted here whose caller waits for the outcome through AwaitOutcome (their root call
    // answered when an activation went), by tid, with their bid: how they end is kept until asked.
    private readonly Dictionary<long, long> movedRoots = new();

    // The calls this actor's PACTs wait on, and the going actors they must not call back into.
    private readonly WaitedCalls waited = new();

    // The answers given here to PACTs' nested calls, for callers whose answer is late (PactCallAnswer).
    private readonly ServedCalls served = new();
    private ActorMovingException? leaving; // set by Leave: this activation is going
    private TaskCompletionSource? left;     // completed by Leave, for waits that must not hold the activation
    private TState? working;
    private long workingVersion; // the version the running batch's writes become: one more than what it copied
    private TState? workingBase; // what working was copied from (version workingVersion - 1): a delta is logged against it

    public PactParticipant(ActorId id, PactServices services, StateVersions<TState> versions, LocalSchedule schedule)
    {
        Id = id;
        this.services = services;
        this.versions = versions;
        this.schedule = schedule;
        logger = services.Loggers.For(id);
        completion = new BatchCompletion(id, services, logger, schedule);
        schedule.Attach(this);
    }

    public ActorId Id { get; }

    internal LocalSchedule Schedule => schedule;

    /// <summary>True while any batch is scheduled here or not yet committed.</summary>
    public bool HasUncommittedBatches => schedule.HasBatches || versions.HasUncommitted;

    ValueTask<TState> ITransactionEngine<TState>.GetState(TxnContext ctx, AccessMode mode) => new(GetState(ctx, mode));

    /// <summary>An after-commit action of the PACT, registered in its turn here: kept with its batch until the batch completes here.</summary>
    public void AfterCommit(TxnContext ctx, object message)
    {
        InTurn(ctx, nameof(AfterCommit));
        if (!pendingActions.TryGetValue(ctx.Bid, out var actions))
        {
            pendingActions[ctx.Bid] = actions = [];
        }

        var seq = 0;
        foreach (var earlier in actions)
        {
            seq += earlier.Tid == ctx.Tid ? 1 : 0;
        }

        actions.Add(services.AfterCommit.Register(ctx.Tid, Id, seq, message));
    }

    // The PACT's turn here, in which alone it may touch this actor; refused if it is aborting.
    private ScheduledPact InTurn(TxnContext ctx, string operation)
    {
        if (schedule.CurrentTurn(ctx.Bid) is not { } pact || pact.Tid != ctx.Tid)
        {
            throw new SnapperException($"{operation} on {Id} with the context of {ctx} outside that PACT's turn on {Id}; a PACT reaches an actor only through CallActor.");
        }

        if (pact.AbortedBy is not null)
        {
            throw pact.Refusal();
        }

        return pact;
    }

    public TState GetState(TxnContext ctx, AccessMode mode)
    {
        var pact = InTurn(ctx, nameof(GetState));

        if (mode == AccessMode.ReadWrite && !pact.Wrote)
        {
            // Its first write in this batch: remember what to go back to if it aborts.
            StateBeforeWrite<TState>? before = null;
            if (working is null)
            {
                var (latest, version) = versions.ReadLatest();
                workingVersion = version + 1;
                workingBase = latest;
                working = services.Serializer.Copy(latest);
            }
            else
            {
                before = StateBeforeWrite<TState>.Of(services.Serializer, workingBase, working);
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
    public async Task<TResult> CallActor<TActor, TResult>(TxnContext ctx, ActorId target, Func<TActor, Task> call)
        where TActor : ITransactionalActor
    {
        ArgumentNullException.ThrowIfNull(call);
        var declaredAt = ctx.Declared?.IndexOf(target) ?? -1;
        if (declaredAt < 0)
        {
            // Refused here, before the call leaves: the PACT aborts in its turn on this actor, so
            // nobody has read its writes yet, and the abort names the call a promoted run must add.
            var undeclared = Aborts.Undeclared(ctx.Tid, target, 1, $"PACT {ctx.Tid} called actor {target}, which its declaration does not name");
            if (ctx.Root == Id)
            {
                refusedFromRoot[ctx.Tid] = refusedFromRoot.TryGetValue(ctx.Tid, out var refused) ? refused.And(target) : undeclared.Reached!;
            }

            FailedCall(ctx, undeclared);
            throw undeclared;
        }

        LateAnswers? askWhenLate = null;
        if (ctx.Root == Id && callsFromRoot.TryGetValue(ctx.Tid, out var counted))
        {
            // Asked about when late only if it is the PACT's one call on the target (declared once,
            // the root's first): the callee keeps an answer only then (ServedCalls). A second call
            // breaks the declaration; the first is then no longer asked about either.
            if (++counted[declaredAt] == 1 && ctx.Declared!.CallsOn(target) == 1)
            {
                askWhenLate = services.LateAnswers;
            }
            else if (ctx.Declared!.CallsOn(target) == 1)
            {
                waited.NoLongerAsk(ctx.Tid, target);
            }
        }

        var (callee, outer) = BeginCall<TActor>(target);
        try
        {
            while (true)
            {
                try
                {
                    if (leaving is not null)
                    {
                        waited.Going(ctx.Tid, Id, out _); // this actor is going: its calls name it too
                    }

                    if (waited.IsGoing(ctx.Tid, target))
                    {
                        // Its activation takes no message until the call of this PACT running there
                        // returns. Refused before it is sent; the filter below aborts the PACT.
                        throw WaitedCalls.Refusal(ctx.Tid, target);
                    }

                    var answer = call(callee);
                    PassOnGoing(ctx.Tid, target);
                    var waiting = waited.Await(ctx.Tid, target, answer, askWhenLate, Id, new LateCallTerms(ctx.Bid, ctx.GivesUpLateCalls ? ctx.Coordinator : null));
                    bool recovered;
                    object? given;
                    try
                    {
                        await waiting;
                    }
                    finally
                    {
                        recovered = waited.End(ctx.Tid, waiting, out given);
                    }

                    // The callee's answer given again when the call's own was late (LateAnswers).
                    return recovered ? (given is TResult result ? result : default!) : CallAnswers.ResultOf<TResult>(answer);
                }
                catch (ActorMovingException) when (services.Clock.GetUtcNow() < ctx.Deadline)
                {
                    // The callee's activation went before the call started there: the next one takes it.
                }
            }
        }
        catch (Exception e) when (FailedCall(ctx, Aborts.OfCall(ctx.Tid, target, e, answered: false)))
        {
            // Never reached: the filter aborts the PACT and lets the exception pass uncaught. A
            // callee that ran reported its own failure to the coordinator before it answered, and
            // the first cause is kept, so this one names the abort only of a call that got no
            // answer: a lost one.
            throw;
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
        var callee = services.Resolver.Get<TActor>(target);
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
        completion.Fail(ctx, e);
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
        var started = services.Clock.GetTimestamp();
        // Set only in this actor's turns (BatchCommit, an abort), so what follows the await below
        // may run inline there instead of as one more work item for this grain: it only records
        // the outcome and answers the caller.
        var outcome = new TaskCompletionSource();
        outcomes[ctx.Tid] = (ctx.Bid, outcome);
        using var span = SnapperTracing.StartTransaction(ctx);
        var execute = SnapperTracing.StartPhase(SnapperTracing.Execute);
        if (ctx.Declared is { Count: > 1 } declared && !ctx.Promoted)
        {
            callsFromRoot[ctx.Tid] = new int[declared.Count];
        }

        try
        {
            try
            {
                await Enter(ctx);
            }
            catch (TransactionAbortedException refused)
            {
                // The call never ran: its PACT aborted before it came, or its batch is gone from here
                // (a start call late past the declaration timeout, say). That is the answer: the
                // outcome must not wait for a later batch's commit, which would answer "committed".
                outcomes.Remove(ctx.Tid);
                abortedEarly.Remove(ctx.Tid);
                // Without what a refused call "reached": a start call is no call beyond a declaration.
                outcome.TrySetException(new TransactionAbortedException(refused.Reason, refused.Detail, refused) { Tid = ctx.Tid, Blocker = refused.Blocker });
                throw;
            }

            await RunInTurn(ctx, invoke);
            ReleaseUncalled(ctx);
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
            callsFromRoot.Remove(ctx.Tid);
            execute?.Dispose();
        }

        if (schedule.CascadeOf(ctx.Bid) is { } cascade)
        {
            // The batch was aborted before this root got to run (its outcome was not registered
            // yet when the cascade came by).
            outcomes.Remove(ctx.Tid);
            outcome.TrySetException(Aborts.Cascaded(ctx.Tid, ctx.Bid, cascade));
        }
        else if (abortedEarly.Remove(ctx.Tid, out var early))
        {
            outcomes.Remove(ctx.Tid);
            outcome.TrySetException(Aborts.AbortedBy(ctx.Tid, early.Cause));
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
            services.Metrics.Committed(TxnMode.Pact, services.Clock.GetElapsedTime(started));
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
            services.Metrics.Aborted(TxnMode.Pact, aborted, services.Clock.GetElapsedTime(started));
            SnapperTracing.Aborted(span, aborted);
            if (refusedFromRoot.Remove(ctx.Tid, out var refused) && aborted.Reason == AbortReason.DeclarationError)
            {
                throw new TransactionAbortedException(aborted.Reason, aborted.Detail, aborted.InnerException) { Tid = aborted.Tid, Reached = aborted.Reached?.Covering(refused) ?? refused, Blocker = aborted.Blocker };
            }

            throw;
        }
    }

    // The body of PACT ctx, rooted here, has returned, with every call it awaited: a declared actor
    // called fewer times than declared will get no more calls (a PACT may declare what it may
    // touch), so its turn there ends now instead of at the declaration timeout. Calls made from
    // other actors are not counted here: those actors are released too, which is a no-op where
    // every declared call came. A promoted PACT's turns end only at this word, so all its actors hear it.
    private void ReleaseUncalled(TxnContext ctx)
    {
        schedule.Release(ctx.Bid, ctx.Tid);
        callsFromRoot.TryGetValue(ctx.Tid, out var counted);
        if (counted is null && !ctx.Promoted)
        {
            return; // it declared only this actor
        }

        var declared = ctx.Declared!;
        for (var i = 0; i < declared.Count; i++)
        {
            var (actor, calls) = declared[i];
            if (actor != Id && (counted is null || counted[i] < calls))
            {
                _ = Release(actor, ctx.Bid, ctx.Tid);
            }
        }
    }

    private async Task Release(ActorId actor, long bid, long tid)
    {
        try
        {
            await services.Resolver.Participant(actor).ReleasePact(bid, tid);
        }
        catch (Exception e)
        {
            LogMessages.DeliveryFailed(services.Diagnostics, e, actor); // the declaration timeout still ends its turn there
        }
    }

    /// <summary>A call of PACT <paramref name="ctx"/> arrives here: wait for its turn in the local schedule, run it (<paramref name="invoke"/>), count it out.</summary>
    public async Task InvokePact(TxnContext ctx, Func<Task> invoke)
    {
        await Enter(ctx);
        await RunInTurn(ctx, invoke);
    }

    // Waits for the turn of ctx's call here; throws, the failure reported, if the call is refused.
    private async Task Enter(TxnContext ctx)
    {
        if (ctx.Declared is not { } declared || declared.CallsOn(Id) == 0)
        {
            var undeclared = Aborts.Undeclared(ctx.Tid, Id, 1, $"PACT {ctx.Tid} called actor {Id}, which its declaration does not name");
            completion.Fail(ctx, undeclared);
            throw undeclared;
        }

        if (ctx.Coordinator is { } coordinator && services.DecidedByFailover(coordinator, ctx.Bid) && !Holds(ctx.Bid))
        {
            // Its batch is one the failover of its coordinator's silo decided, and not here: it never
            // runs here (OnBatch), so the call waiting for it would wait for ever.
            throw new TransactionAbortedException(
                AbortReason.Failure,
                $"its batch {ctx.Bid} was emitted by coordinator {coordinator}, whose silo left the cluster before the batch reached actor {Id}") { Tid = ctx.Tid };
        }

        try
        {
            await schedule.Enter(ctx);
        }
        catch (TransactionAbortedException e)
        {
            completion.Fail(ctx, e);
            throw;
        }
    }

    // Runs ctx's call in its turn here, and counts it out.
    private async Task RunInTurn(TxnContext ctx, Func<Task> invoke)
    {
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
            completion.Fail(ctx, e);
            throw;
        }
        finally
        {
            schedule.Exit(ctx);
        }
    }

    /// <summary>A nested call of PACT <paramref name="ctx"/> arrived here (<see cref="Answered"/> follows).</summary>
    /// <remarks>Kept only for an actor the PACT declared once: no caller asks about another (CallActor).</remarks>
    public void Arrived(TxnContext ctx)
    {
        if (ctx.Declared?.CallsOn(Id) == 1)
        {
            served.Arrived(ctx.Tid, ctx.Bid);
        }
    }

    /// <summary>A nested call of PACT <paramref name="ctx"/> from <paramref name="caller"/> was answered: kept until its batch resolves here, for a caller whose answer is late.</summary>
    public void Answered(TxnContext ctx, GrainId? caller, object? result, Exception? failure)
    {
        if (ctx.Declared?.CallsOn(Id) == 1)
        {
            served.Answered(ctx.Tid, caller, result, failure);
        }
    }

    /// <summary>
    /// <see cref="ISnapperParticipant.PactCallAnswer"/>: the answer this actor gave PACT
    /// <paramref name="tid"/>'s call from <paramref name="caller"/>, if it has one. A call that has
    /// not arrived, of a PACT that aborted here, gets that abort; one whose turn here has not begun
    /// is refused ahead if <paramref name="refuseAheadFor"/> names its coordinator (see the private <c>RefuseAhead</c>).
    /// </summary>
    public LateCallAnswer AnswerOf(long bid, long tid, GrainId caller, string? refuseAheadFor)
    {
        var answer = served.AnswerOf(tid, caller);
        if (answer.Answered || served.Knows(tid))
        {
            return answer;
        }

        if (schedule.AbortOf(bid, tid) is { } aborted)
        {
            // Refused ahead by an earlier question whose answer was lost, or aborted by its
            // coordinator meanwhile: the call is refused when it comes, and the caller need not wait.
            return new LateCallAnswer(true, null, Aborts.PactRefused(tid, aborted));
        }

        return refuseAheadFor is { } coordinator && RefuseAhead(bid, tid, coordinator, Aborts.LateCall(tid, Id)) is { } refused
            ? refused
            : answer;
    }

    // A call of PACT tid of batch bid has not reached this engine, late: if its turn here has not
    // begun, the PACT aborts here ahead of it. The failure goes to its coordinator before the turn
    // ends, so this actor's BatchComplete waits for it (the batch may complete here at once); the
    // root, whose call fails with the refusal, reports it too before its own BatchComplete (a body
    // awaits its calls), which covers a next activation here that does not wait for this report:
    // no batch commits without the PACT's abort. Not in a going activation (it hands its schedule
    // over as it is) nor in a batch handed over by one (its PACTs' aborts there fail the batch).
    private LateCallAnswer? RefuseAhead(long bid, long tid, string coordinator, TransactionAbortedException refusal)
    {
        if (leaving is not null || handedOver.Contains(bid) || !schedule.MayRefuseAhead(bid, tid))
        {
            return null;
        }

        completion.Fail(bid, tid, coordinator, refusal);
        schedule.AbortPact(bid, tid, refusal, out _); // the turn ends or is skipped; the call is refused when it comes
        return new LateCallAnswer(true, null, refusal, RefusedAhead: true);
    }

    void IPactSide.BatchStarted(SubBatch batch) => working = null;

    void IPactSide.BatchNotArrived(TxnContext ctx)
    {
        if (ctx.Coordinator is { } coordinator)
        {
            _ = AskForBatch(coordinator, ctx.Bid);
        }
    }

    // In its own turn: nobody read its writes.
    void IPactSide.AbortedTurnEnded(ScheduledPact pact) => TakeBack(pact.Tid, pact.AbortedBy!);

    void IPactSide.BatchCompleted(SubBatch batch)
    {
        var written = working;
        var builtFrom = workingBase;
        working = workingBase = null;
        versions.BatchCompleted(batch.Bid, batch.Coordinator, written, workingVersion);
        var (state, delta) = written is null || logger is null ? (ReadOnlyMemory<byte>.Empty, false) : versions.LogForm.Encode(services.Serializer, builtFrom, written);
        completion.Report(batch, state, delta, workingVersion, pendingActions.Remove(batch.Bid, out var actions) ? [.. actions] : []);
    }
}

using Snapper.Concurrency;
using Snapper.Grains;
using Snapper.Hybrid;
using Snapper.Logging;
using Snapper.State;
using Snapper.Protocol;
using Snapper.Scheduling;

namespace Snapper.Act;

/// <summary>
/// The ACT engine of one transactional actor (Snapper §4.3): strict 2PL through
/// <see cref="WaitDieLock"/>, execution info for the root, and the participant's side of 2PC with
/// presumed abort (<c>ActParticipant.Outcomes.cs</c>); for the ACTs that start here, the root's side
/// is <see cref="ActRoot{TState}"/>. Under hybrid execution (§4.4) an ACT first joins the actor's
/// <see cref="LocalSchedule"/> and runs once the batches before it have completed; it reports
/// where it sits among batches so the root can run the serializability check.
/// <see cref="TransactionalActor{TState}"/> reaches it through <c>ActorEngines</c>.
/// </summary>
/// <remarks>
/// Runs only inside the actor's turns, like a reentrant Orleans grain: turns interleave at awaits
/// but never run in parallel, so the fields need no locking. Everything it tells another actor —
/// the ACT's root above all — is a grain call; nothing is shared with other actors.
/// </remarks>
internal sealed partial class ActParticipant<TState> : IActSide, ITransactionEngine<TState>
    where TState : class
{
    private readonly ActServices services;
    private readonly ActRoot<TState> root;
    private readonly UndecidedWrites<TState> undecided;
    private Action expiry = static () => { };
    private readonly LogWriter? logger;
    private readonly StateVersions<TState> versions;
    private readonly LocalSchedule schedule;
    private readonly WaitDieLock @lock;
    private readonly Dictionary<long, ActRecord<TState>> records = new();

    // Early lock release (Thorp §III.E, the "active versions log"): states of ACTs that prepared
    // here, released their locks, and are not decided yet, oldest first. Each was built on the one
    // before it, so its writer depends on the previous one: a commit implies the ones before it,
    // an abort takes the ones after it along.
    private readonly List<(long Tid, ActDependency Writer, TState State, long Version)> activeVersions = new();

    // The highest max(BeforeSet) of the ACTs that finished here: each precedes every later ACT that
    // conflicts with it here, so its BeforeSet is part of theirs (§4.4.3).
    private long precedingActsMaxBeforeBid;

    // Orleans has started to deactivate this activation (Leave): no lock wait may start here.
    private bool leaving;

    // A PACT batch has been placed here since activation: from then on an ACT's lock waits are
    // reported to its root (they may hold up batches); pure-ACT actors send nothing extra.
    private bool seenBatches;

    // ACTs told here to abort or to stop waiting before their call arrived (it was held or slow on
    // its way): the call is refused when it comes, instead of taking locks no one will release.
    private readonly RecentTids refusedOnArrival = new(256);

    // ACTs committed here lately: a Commit sent again (the first try's answer was late) is no news.
    private readonly RecentTids committedHere = new(256);

    // The calls this actor's ACTs wait on, and the going actors they must not call back into.
    private readonly WaitedCalls waited = new();

    // This activation, as its reports name it (never 0): an ACT whose calls reached two activations
    // of the actor lost the first one's part with it, and must not commit (ExecutionInfo.Add).
    private readonly int incarnation = Random.Shared.Next(1, int.MaxValue);

    public ActParticipant(ActorId id, ActServices services, StateVersions<TState> versions, LocalSchedule schedule)
    {
        Id = id;
        @lock = new WaitDieLock(id);
        this.services = services;
        this.versions = versions;
        this.schedule = schedule;
        logger = services.Loggers.For(id);
        root = new ActRoot<TState>(this, services);
        undecided = new UndecidedWrites<TState>(id, services, versions);
        schedule.Attach(this);
    }

    public ActorId Id { get; }

    /// <summary>The root of the ACTs that start on this actor.</summary>
    public ActRoot<TState> Root => root;

    /// <summary>The ACTs rooted here (for tests and the actor's quiescence).</summary>
    internal ActRoots Roots => root.Roots;

    /// <summary>
    /// The actor's hooks: <paramref name="onRecord"/> when a record is added (so stale ones are
    /// expired), <paramref name="onRemembered"/> when an outcome must be answered for a while (so
    /// the actor is not deactivated meanwhile), and the actor itself (<paramref name="actor"/>), which
    /// an ACT rooted here asks in place for its vote and commit.
    /// </summary>
    public void Attach(Action onRecord, Action<TimeSpan> onRemembered, ISnapperParticipant actor)
    {
        expiry = onRecord;
        root.Attach(onRemembered, actor);
    }

    /// <summary>Transactions this actor currently takes part in.</summary>
    public int ActiveRecords => records.Count;

    internal WaitDieLock Lock => @lock;

    /// <summary>Prepared, undecided states exposed by early lock release (for tests).</summary>
    internal int ActiveVersionCount => activeVersions.Count;

    /// <summary>The state versions this engine shares with the actor's PACT engine.</summary>
    internal StateVersions<TState> Versions => versions;

    public ValueTask<TState> GetState(TxnContext ctx, AccessMode mode)
    {
        ArgumentNullException.ThrowIfNull(ctx);
        if (mode is not (AccessMode.Read or AccessMode.ReadWrite))
        {
            throw new ArgumentOutOfRangeException(nameof(mode), mode, "AccessMode must be Read or ReadWrite.");
        }

        var record = Running(ctx, nameof(GetState));
        var acquire = @lock.Acquire(ctx.Tid, ctx.PriorityOrTid, mode == AccessMode.ReadWrite ? LockMode.Write : LockMode.Read, ctx.Deadline, services.Clock, HoldsNothing(record));
        return acquire.IsCompletedSuccessfully ? new ValueTask<TState>(StateFor(record, mode)) : AwaitLock(acquire, record, mode);
    }

    /// <summary>
    /// An after-commit action of the ACT, registered here: it goes to the root in this actor's
    /// execution info (with the answer of every later call of the ACT here), and the root logs it
    /// with its decision.
    /// </summary>
    public void AfterCommit(TxnContext ctx, object message)
    {
        var record = Running(ctx, nameof(AfterCommit));
        if (CallScope.Current is not { Answered: false } scope || scope.Tid != ctx.Tid)
        {
            // Its call has answered (a task the method did not await runs on): the action would
            // not reach the root, and the ACT would commit without it.
            throw new SnapperException($"AfterCommit on {Id} in {ctx} outside a running call of that transaction on {Id}: await every task that registers an action before the method returns.");
        }

        record.Learned.AddAction(services.AfterCommit.Register(ctx.Tid, Id, record.ActionsRegistered++, message));
    }

    /// <summary>
    /// A nested call within the ACT, made from this actor against an ordinary grain reference. The
    /// callee's execution info comes back inside the response (<see cref="ExecutionInfoResponse"/>)
    /// and is merged into this actor's record, so it reaches the root with this actor's own report.
    /// </summary>
    public async Task<TResult> CallActor<TActor, TResult>(TxnContext ctx, ActorId target, Func<TActor, Task> call)
        where TActor : ITransactionalActor
    {
        ArgumentNullException.ThrowIfNull(call);
        var callee = services.Resolver.Get<TActor>(target);
        var frame = BeginCall(ctx, target);
        try
        {
            var answer = call(callee);
            PassOnGoing(ctx.Tid, target);
            var waiting = waited.Await(ctx.Tid, target, answer);
            try
            {
                await (seenBatches && !waiting.IsCompleted ? Patiently(waiting, ctx, frame) : waiting);
            }
            finally
            {
                waited.End(ctx.Tid, waiting, out _);
            }

            return CallAnswers.ResultOf<TResult>(answer);
        }
        catch (Exception e) when (FailedCall(frame, e))
        {
            throw; // never reached: the filter notes the failure (a lost call as such) and lets it pass uncaught
        }
        finally
        {
            EndCall(frame);
        }
    }

    /// <summary>
    /// A call of the ACT arrives here (<paramref name="invoke"/> runs the user's method): join the
    /// transaction (and the local schedule) on the first call, wait to be admitted, run it, wait
    /// for every call it made, and report this actor's execution info with the call's failure, if
    /// any. A failure is returned, not thrown (docs/architecture.md, "Aborts are values inside Snapper").
    /// </summary>
    public async Task<CallReport> Invoke(TxnContext ctx, Func<Task> invoke)
    {
        if (!records.TryGetValue(ctx.Tid, out var record))
        {
            if (services.Clock.GetUtcNow() > ctx.Deadline)
            {
                throw new SnapperException(
                    $"{Id} was called with the TxnContext of {ctx}, which has already finished or run past its deadline; a TxnContext is valid only inside its own transaction.");
            }

            if (refusedOnArrival.Contains(ctx.Tid))
            {
                throw new TransactionAbortedException(AbortReason.Failure, $"its call reached {Id} after the ACT was aborted there or told to stop waiting") { Tid = ctx.Tid };
            }

            record = new ActRecord<TState>(ctx) { Group = schedule.JoinAct(ctx.Tid, ActPlacementHint.Read()) };
            records.Add(ctx.Tid, record);
            expiry();
            if (schedule.BatchAfter(record.Group) is > 0 and var after)
            {
                // Placed before batches already here: they are in its AfterSet from the start.
                root.SignalRoot(ctx.Root, p => p.BatchBehind(ctx.Tid, after, Id), act => act.NoteBatchBehind(after, Id), ctx.Tid);
            }

            if (record.Group.Phase == ActGroupPhase.Open)
            {
                NoteBatchBefore(record);
            }
            else
            {
                record.Admission = Admit(record);
            }
        }
        else if (record.State != ActRecordState.Active)
        {
            throw new SnapperException($"{Id} was called in {ctx} after it prepared to commit.");
        }

        record.Calls++;
        var scope = new CallScope(ctx.Tid);
        CallScope.Current = scope;
        Exception? failure = null;
        try
        {
            failure = record.Admission.IsCompletedSuccessfully ? record.Admission.Result : await record.Admission;
            if (failure is null)
            {
                // Awaited without throwing: a failure is taken as a value (one throw fewer per failed call).
                var call = invoke();
                await call.ConfigureAwait(ConfigureAwaitOptions.ContinueOnCapturedContext | ConfigureAwaitOptions.SuppressThrowing);
                failure = call.IsFaulted ? call.Exception.InnerException : call.IsCanceled ? new TaskCanceledException(call) : null;
            }
        }
        catch (Exception e)
        {
            failure = e;
        }
        finally
        {
            CallScope.Current = null;
        }

        if (scope.InFlight > 0)
        {
            failure ??= new SnapperException(
                $"A call of transaction {ctx.Tid} made from actor {Id} was still running when the method that made it returned: await every CallActor (and every task that makes one) before returning.");
            await AwaitStrayCalls(ctx, scope);
        }

        scope.Answer();
        return new CallReport(Report(record), failure);
    }

    // An exception filter that never catches: the failure is the ACT's (it aborts, whatever its
    // body does with the exception), and the actors where its other calls wait hear it now rather
    // than once the body returns (OnDoomed), with the reason of the first failure, the one its root
    // reports. Not for a call made after its method answered: nothing carries that failure to the
    // root, and the ACT may still commit.
    private bool FailedCall(CallFrame frame, Exception thrown)
    {
        var ctx = frame.Record.Context;
        var answered = frame.Learned.Participants.Count > 0;
        var failure = Aborts.OfCall(ctx.Tid, frame.Target, thrown, answered);
        if (!answered && !ReferenceEquals(failure, thrown))
        {
            // Lost on its way there or back: the callee may have run it and hold its lock, and its
            // answer told no one. Named here, so the root's Abort goes there too (and on to the
            // actors its calls reached), not only the callee's own expiry after the deadline.
            frame.Learned.AddUnanswered(frame.Target);
        }

        frame.Learned.Fail(failure);
        if (frame.Record.DoomedAt is null && frame.Scope is { Answered: false })
        {
            var reason = Aborts.ReasonOf(frame.Learned.Failure!);
            OnDoomed(ctx.Tid, Id, reason);
            if (ctx.Root != Id)
            {
                root.Send(ctx.Root, p => p.ActDoomed(ctx.Tid, Id, reason));
            }
        }

        return false;
    }

    // What a CallActor sets up around its call, and undoes after it: the callee's info goes to a
    // sink of its own (merged into the record afterwards), and the call counts as in flight.
    private CallFrame BeginCall(TxnContext ctx, ActorId target)
    {
        var record = Running(ctx, nameof(CallActor));
        if (leaving)
        {
            // Leave told the calls already under way to stop waiting; a call started now could
            // wait on a message to this activation, which takes none until this call returns.
            var refused = new TransactionAbortedException(AbortReason.Failure, $"actor {Id} is being deactivated: the ACT may start no call from it") { Tid = ctx.Tid };
            record.Learned.Fail(refused);
            throw refused;
        }

        if (waited.IsGoing(ctx.Tid, target))
        {
            // Its activation takes no message until the call of this ACT running there returns.
            var refused = WaitedCalls.Refusal(ctx.Tid, target);
            record.Learned.Fail(refused);
            throw refused;
        }

        if (@lock.IsEntrant(ctx.Tid))
        {
            // It waits here as one that holds nothing, and is about to take locks elsewhere.
            @lock.RefuseWaiter(ctx.Tid, new TransactionAbortedException(AbortReason.WaitDie, $"called {target} while it waited for the lock of its root {Id}") { Tid = ctx.Tid, Blocker = @lock.InTheWay(ctx.Tid) });
        }

        var frame = new CallFrame(record, new ExecutionInfo(), ExecutionInfoSink.Value, CallScope.Current is { } current && current.Tid == ctx.Tid ? current : null, target);
        (record.Calling ??= []).Add(target);
        frame.Scope?.Started();
        ExecutionInfoSink.Value = frame.Learned;
        ActPlacementHint.Set(Math.Max(Math.Max(record.BeforeBatch.Bid, precedingActsMaxBeforeBid), record.Learned.Bounds?.MaxBeforeBid ?? 0));
        return frame;
    }

    // At its root, before it has called anyone, an ACT holds no lock anywhere (WaitDieLock's
    // entrant). Not where batches have run: there a batch may be placed behind the ACT's group,
    // so a waiting ACT holds up batches, and plain wait-die stays.
    private bool HoldsNothing(ActRecord<TState> record) =>
        !seenBatches && record.Context.Root == Id && record.Calling is null && record.Learned.Participants.Count == 0 && @lock.HeldBy(record.Context.Tid) == LockMode.None;

    private static void EndCall(CallFrame frame)
    {
        frame.Record.Calling?.Remove(frame.Target);
        ExecutionInfoSink.Value = frame.OuterSink;
        frame.Record.Learned.Merge(frame.Learned);
        frame.Scope?.Ended();
    }

    private ActRecord<TState> Running(TxnContext ctx, string operation)
    {
        ArgumentNullException.ThrowIfNull(ctx);
        if (!records.TryGetValue(ctx.Tid, out var record))
        {
            throw new SnapperException(
                $"{operation} on {Id} was given the TxnContext of {ctx}, which has already finished or is not running on {Id}. " +
                "A TxnContext is valid only inside its own transaction, and a transaction reaches an actor only as its first actor or through CallActor.");
        }

        return record;
    }

    // The newest state an ACT may build on: the last active version, else the last completed batch's or the committed one.
    private (TState State, long Version) ReadLatest() => activeVersions.Count > 0 ? (activeVersions[^1].State, activeVersions[^1].Version) : versions.ReadLatestForAct();


    // The ACT joined a group behind a batch that has not completed here: wait for it, bounded by
    // the deadlock timeout (§4.4.2), and leave the group at once if that fails, so the batch after
    // it is not held up by an ACT that will abort. The root knows whether the wait is doomed (a
    // batch up to this one is already behind the ACT elsewhere): at the root it is a local wait,
    // elsewhere the root is asked to say so. Returns the abort if it may not wait, else null.
    private async Task<Exception?> Admit(ActRecord<TState> record)
    {
        var tid = record.Context.Tid;
        var before = schedule.BatchBefore(record.Group);
        Exception? refusal;
        try
        {
            if (root.Roots.Find(tid) is { } local)
            {
                var end = await local.WaitForBatch(before, record.Group.WhenOpen, services.DeadlockTimeout, services.Clock);
                refusal = end == BatchWaitEnd.Ready ? null : local.Refusal(end, before, Id, WaitingFor(before), services.DeadlockTimeout, AbortReason.Deadlock);
            }
            else
            {
                var doomed = record.Doomed = new TaskCompletionSource<(long Behind, ActorId At)>(TaskCreationOptions.RunContinuationsAsynchronously);
                root.Send(record.Context.Root, p => p.WatchBatch(tid, before, Id));
                var end = await BatchWait.Until(record.Group.WhenOpen, doomed.Task, services.DeadlockTimeout, services.Clock);
                refusal = end == BatchWaitEnd.Ready ? null
                    : RunningAct.Refusal(tid, end, end == BatchWaitEnd.Doomed ? doomed.Task.Result : default, before, Id, WaitingFor(before), services.DeadlockTimeout, AbortReason.Deadlock);
            }
        }
        catch (Exception e)
        {
            refusal = e;
        }
        finally
        {
            record.Doomed = null;
        }

        if (refusal is not null)
        {
            Forget(tid);
            return refusal;
        }

        NoteBatchBefore(record);
        return null;
    }

    private string WaitingFor(long bid) => $"batch {bid} to complete on actor {Id}";

    // The ACT is admitted: it runs after the last batch that completed here.
    private void NoteBatchBefore(ActRecord<TState> record)
    {
        var (bid, coordinator, committed) = versions.LastBatch;
        record.BeforeBatch = new BatchRef(bid, coordinator ?? string.Empty);
        record.BeforeCommitted = committed;
    }

    // Waits for the lock. Meanwhile the ACTs ahead of this one precede it, so the batches it holds
    // up are held up by them too (see RunningAct): its root is told whom it waits for, and passes
    // the batches on to their roots, so a PACT/ACT deadlock through a lock wait is found when they
    // wait for a batch, not after the deadlock timeout. Only once batches have been seen here.
    private async ValueTask<TState> AwaitLock(ValueTask acquire, ActRecord<TState> record, AccessMode mode)
    {
        var tid = record.Context.Tid;
        if (leaving)
        {
            // A wait that starts once the activation is going would outlast it (see Leave).
            @lock.RefuseWaiter(tid, Deactivated(tid));
        }
        else if (record.DoomedAt is { } doomedAt)
        {
            @lock.RefuseWaiter(tid, Doomed(tid, doomedAt, record.DoomedBy)); // it will abort: no wait for a lock it cannot use
        }

        var ahead = new List<ActDependency>();
        if (seenBatches)
        {
            foreach (var holder in @lock.Ahead(tid))
            {
                if (records.TryGetValue(holder, out var held))
                {
                    var dependency = new ActDependency(holder, held.Context.Root, held.Context.RootSilo);
                    ahead.Add(dependency);
                    root.SignalRoot(record.Context.Root, p => p.LockWait(tid, dependency, true), act => act.BlockedBy(dependency), tid);
                }
            }
        }

        try
        {
            await acquire;
        }
        finally
        {
            foreach (var holder in ahead)
            {
                root.SignalRoot(record.Context.Root, p => p.LockWait(tid, holder, false), act => act.Unblocked(holder.Tid), tid);
            }
        }

        return StateFor(record, mode);
    }

    private TState StateFor(ActRecord<TState> record, AccessMode mode)
    {
        if (record.Working is null && activeVersions.Count > 0)
        {
            record.DependsOn ??= activeVersions[^1].Writer; // Thorp: a commit dependency on the last active version
        }

        if (record.Working is not null)
        {
            return record.Working;
        }

        var (latest, version) = ReadLatest();
        if (mode == AccessMode.Read)
        {
            return latest;
        }

        record.WorkingVersion = version + 1;
        // A delta is logged against a state whose fate the logs alone decide (committed, or a
        // batch's): never against another ACT's early-released one, which a failover could not tell
        // apart from an aborted write of the same version.
        record.Base = activeVersions.Count > 0 ? null : latest;
        return record.Working = services.Serializer.Copy(latest);
    }

    private ExecutionInfo Report(ActRecord<TState> record)
    {
        var role = @lock.HeldBy(record.Context.Tid) switch
        {
            LockMode.Write => ParticipantRole.Writer,
            LockMode.Read => ParticipantRole.Reader,
            _ => ParticipantRole.Visitor,
        };
        var after = records.ContainsKey(record.Context.Tid) ? schedule.BatchAfter(record.Group) : 0;
        return record.Learned.Snapshot(Id, role, record.BeforeBatch, record.BeforeCommitted, after, precedingActsMaxBeforeBid, record.DependsOn, record.Calls, incarnation);
    }

    private readonly record struct CallFrame(ActRecord<TState> Record, ExecutionInfo Learned, ExecutionInfo? OuterSink, CallScope? Scope, ActorId Target);
}

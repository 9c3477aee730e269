using Snapper.Grains;
using Snapper.Concurrency;
using Snapper.Hybrid;
using Snapper.Logging;
using Snapper.Pact;
using Snapper.State;

namespace Snapper.Act;

/// <summary>
/// The ACT engine of one transactional actor (Snapper §4.3): strict 2PL through
/// <see cref="WaitDieLock"/>, execution info for the root, and the participant's side of 2PC with
/// presumed abort. Under hybrid execution (§4.4) an ACT first joins the actor's
/// <see cref="LocalSchedule"/> and runs once the batches before it have completed; it reports
/// where it sits among batches so the root can run the serializability check.
/// <see cref="TransactionalActor{TState}"/> is a thin shell over it.
/// </summary>
/// <remarks>
/// Runs only inside the actor's turns, like a reentrant Orleans grain: turns interleave at awaits
/// but never run in parallel, so the fields need no locking.
/// </remarks>
internal sealed class ActParticipant<TState>
    where TState : class
{
    private readonly SnapperRuntime runtime;
    private readonly Logger? logger;
    private readonly StateVersions<TState> versions;
    private readonly LocalSchedule schedule;
    private readonly WaitDieLock @lock = new();
    private readonly Dictionary<long, ActRecord<TState>> records = new();

    // Early lock release (Thorp §III.E, the "active versions log"): states of ACTs that prepared
    // here, released their locks, and are not decided yet, oldest first. Each was built on the one
    // before it, so its writer depends on the previous one: a commit implies the ones before it,
    // an abort takes the ones after it along.
    private readonly List<(long Tid, ActDependency Writer, TState State)> activeVersions = new();

    // The highest max(BeforeSet) of the ACTs that finished here: each precedes every later ACT that
    // conflicts with it here, so its BeforeSet is part of theirs (§4.4.3).
    private long precedingActsMaxBeforeBid;

    public ActParticipant(ActorId id, SnapperRuntime runtime, StateVersions<TState> versions, LocalSchedule schedule)
    {
        Id = id;
        this.runtime = runtime;
        this.versions = versions;
        this.schedule = schedule;
        logger = runtime.Loggers.For(id);
        schedule.BatchPlacedBehind += (group, bid) =>
        {
            foreach (var tid in group.Members)
            {
                runtime.Active.NoteBatchBehind(tid, bid);
            }
        };
    }

    public ActorId Id { get; }

    /// <summary>Transactions this actor currently takes part in.</summary>
    public int ActiveRecords => records.Count;

    internal WaitDieLock Lock => @lock;

    /// <summary>Prepared, undecided states exposed by early lock release (for tests).</summary>
    internal int ActiveVersionCount => activeVersions.Count;

    /// <summary>The state versions this engine shares with the actor's PACT engine.</summary>
    internal StateVersions<TState> Versions => versions;

    public ValueTask<TState> GetState(TxnContext ctx, AccessMode mode)
    {
        runtime.Active.EnsureRunning(ctx, nameof(GetState));
        if (mode is not (AccessMode.Read or AccessMode.ReadWrite))
        {
            throw new ArgumentOutOfRangeException(nameof(mode), mode, "AccessMode must be Read or ReadWrite.");
        }

        if (!records.TryGetValue(ctx.Tid, out var record))
        {
            throw new SnapperException(
                $"GetState on {Id} with the context of {ctx}, but {Id} is not running that transaction. " +
                "A transaction reaches an actor only as its first actor or through CallActor.");
        }

        var acquire = @lock.Acquire(ctx.Tid, mode == AccessMode.ReadWrite ? LockMode.Write : LockMode.Read, ctx.Deadline, runtime.Clock);
        return acquire.IsCompletedSuccessfully ? new ValueTask<TState>(StateFor(record, mode)) : AwaitLock(acquire, record, mode);
    }

    /// <summary>
    /// A nested call within the ACT, made from this actor against an ordinary grain reference. The
    /// callee's execution info comes back inside the response (<see cref="ExecutionInfoResponse"/>)
    /// and is merged into this actor's record, so it reaches the root with this actor's own report.
    /// </summary>
    public async Task<TResult> CallActor<TActor, TResult>(TxnContext ctx, ActorId target, Func<TActor, Task<TResult>> call)
        where TActor : ITransactionalActor
    {
        var act = runtime.Active.EnsureRunning(ctx, nameof(CallActor));
        ArgumentNullException.ThrowIfNull(call);
        if (!records.TryGetValue(ctx.Tid, out var record))
        {
            throw new SnapperException($"CallActor from {Id} with the context of {ctx}, but {Id} is not running that transaction.");
        }

        var callee = runtime.Resolver.Get<TActor>(target);
        var learned = new ExecutionInfo();
        var outer = ExecutionInfoSink.Value;
        act.CallStarted();
        try
        {
            ExecutionInfoSink.Value = learned;
            return await call(callee);
        }
        catch (Exception e)
        {
            learned.Fail(e);
            throw;
        }
        finally
        {
            ExecutionInfoSink.Value = outer;
            record.Learned.Merge(learned);
            act.CallEnded();
        }
    }

    /// <summary>
    /// A call of the ACT arrives here (<paramref name="invoke"/> runs the user's method): join the
    /// transaction (and the local schedule) on the first call, wait to be admitted, run it, and
    /// report this actor's execution info. On failure throws <see cref="ParticipantCallException"/>
    /// carrying the info and the original exception.
    /// </summary>
    public async Task<ExecutionInfo> Invoke(TxnContext ctx, Func<Task> invoke)
    {
        var act = runtime.Active.EnsureRunning(ctx, "a call");
        if (!records.TryGetValue(ctx.Tid, out var record))
        {
            record = new ActRecord<TState>(ctx) { Group = schedule.JoinAct(ctx.Tid) };
            records.Add(ctx.Tid, record);
            act.Joined(Id);
            if (record.Group.Phase == ActGroupPhase.Open)
            {
                NoteBatchBefore(record);
            }
            else
            {
                record.Admission = Admit(act, record);
            }
        }
        else if (record.State != ActRecordState.Active)
        {
            throw new SnapperException($"{Id} was called in {ctx} after it prepared to commit.");
        }

        try
        {
            if (!record.Admission.IsCompletedSuccessfully)
            {
                await record.Admission;
            }

            await invoke();
            return Report(record);
        }
        catch (Exception e)
        {
            throw new ParticipantCallException(Report(record), e is ParticipantCallException p ? p.Original : e);
        }
    }

    /// <summary>
    /// The root of ACT <paramref name="ctx"/> (Snapper §4.3.3): runs the first call
    /// (<paramref name="invoke"/>) as a participant, then, once every call of the transaction has
    /// returned, decides: the serializability check, 2PC, and the answer to the caller. Throws
    /// <see cref="TransactionAbortedException"/> if it aborted.
    /// </summary>
    public async Task RunAsRoot(TxnContext ctx, bool earlyLockRelease, Func<Task> invoke)
    {
        var started = runtime.Clock.GetTimestamp();
        var act = runtime.Active.Begin(ctx);
        try
        {
            ExecutionInfo info;
            try
            {
                info = await Invoke(ctx, invoke);
            }
            catch (ParticipantCallException failed)
            {
                info = failed.Info;
                info.Fail(failed.Original);
            }

            runtime.Active.Completing(ctx.Tid);
            await AwaitStrayCalls(ctx, act, info);
            if (info.Failure is null && runtime.Clock.GetUtcNow() > ctx.Deadline)
            {
                info.Fail(new TransactionAbortedException(AbortReason.Timeout, $"ran past its deadline of {runtime.Options.TransactionTimeout}"));
            }

            if (info.Failure is { } failure)
            {
                await runtime.Commit.Abort(ctx.Tid, info);
                throw ActCommitCoordinator.AbortedBy(ctx.Tid, failure);
            }

            HybridDecision decision;
            try
            {
                decision = await SerializabilityCheck.Run(act, info, b => runtime.BatchOutcome(b.Bid, b.Coordinator), runtime.Options.DeadlockTimeout, runtime.Clock);
                if (!earlyLockRelease)
                {
                    // Holding its locks, it may as well wait here: nothing it logs may claim a
                    // commit before the ACTs it read from have committed.
                    await CommitDependency.WaitDurable(ctx.Tid, info, runtime.Active, ctx.Deadline, runtime.Clock);
                }
            }
            catch (TransactionAbortedException refused)
            {
                await runtime.Commit.Abort(ctx.Tid, info);
                throw ActCommitCoordinator.AbortedBy(ctx.Tid, refused);
            }

            await runtime.Commit.Commit(ctx, act, info, decision, earlyLockRelease);
            act.SetDecided(true);
            act.SetDurable(true);
            runtime.Metrics.Committed(TxnMode.Act, runtime.Clock.GetElapsedTime(started));
        }
        catch (TransactionAbortedException aborted)
        {
            runtime.Metrics.Aborted(TxnMode.Act, aborted.Reason, runtime.Clock.GetElapsedTime(started));
            throw;
        }
        finally
        {
            act.SetDecided(false); // no-ops once committed
            act.SetDurable(false);
            runtime.Active.End(ctx.Tid, mayHaveDependents: earlyLockRelease);
        }
    }

    // User code may return (or throw) while a CallActor it did not await is still under way; such
    // a call can take locks after the root has decided. So the root waits for every call to
    // return (no new one starts once it is completing), then aborts any actor the call tree
    // reached but never reported, and refuses to commit with a message saying what to fix.
    private async Task AwaitStrayCalls(TxnContext ctx, RunningAct act, ExecutionInfo info)
    {
        var returned = act.WhenCallsReturned();
        if (!returned.IsCompleted)
        {
            var left = ctx.Deadline - runtime.Clock.GetUtcNow();
            try
            {
                await returned.WaitAsync(left > TimeSpan.Zero ? left : TimeSpan.Zero, runtime.Clock);
            }
            catch (TimeoutException)
            {
                info.Fail(new TransactionAbortedException(AbortReason.Timeout, "a call of it was still running at its deadline"));
            }
        }

        foreach (var actor in act.JoinedActors())
        {
            if (!info.Participants.ContainsKey(actor))
            {
                info.Add(actor, ParticipantRole.Visitor); // so that the abort reaches it
                info.Fail(new SnapperException(
                    $"A call of transaction {ctx.Tid} reached actor {actor} but its result never came back to the transaction's first method: await every CallActor (and every task that makes one) before returning."));
            }
        }
    }

    public async Task<Vote> Prepare(long tid, HybridDecision decision, bool earlyLockRelease)
    {
        if (!records.TryGetValue(tid, out var record))
        {
            return Vote.No; // it aborted here already; presumed abort
        }

        precedingActsMaxBeforeBid = Math.Max(precedingActsMaxBeforeBid, decision.MaxBeforeBid);
        if (@lock.HeldBy(tid) != LockMode.Write || record.Working is null)
        {
            Forget(tid);
            return Vote.ReadOnly;
        }

        record.State = ActRecordState.Prepared;
        if (earlyLockRelease && activeVersions.Count < runtime.Options.MaxCommitDependencyChain)
        {
            // Thorp: release at Prepare, before the write below is durable; later ACTs build on
            // this state and depend on this ACT. Past the chain limit it keeps its lock instead.
            activeVersions.Add((tid, new ActDependency(tid, record.Context.Root), record.Working));
            record.ReleasedEarly = true;
            @lock.Release(tid);
        }

        if (logger is not null)
        {
            var state = runtime.Serializer.Serialize(record.Working);
            await logger.Append(new PrepareRecord(tid, Id, record.Context.Root, state));
        }

        return Vote.Yes;
    }

    public Task Commit(long tid, HybridDecision decision)
    {
        if (records.Remove(tid, out var record))
        {
            Apply(record, decision);

            // Informational: recovery decides from the root's CoordCommit, so the vote-to-commit
            // path does not wait for this write. A failure is reported by the logger.
            _ = logger?.Append(new CommitRecord(tid, Id, ReadOnlyMemory<byte>.Empty));
        }

        return Task.CompletedTask;
    }

    public async Task CommitOnePhase(long tid, HybridDecision decision)
    {
        if (!records.TryGetValue(tid, out var record))
        {
            throw new TransactionAbortedException(AbortReason.Failure, $"{Id} no longer knows the transaction") { Tid = tid };
        }

        if (logger is not null && record.Working is not null)
        {
            try
            {
                // Durable before the locks go: a later transaction must never see a lost write.
                await logger.Append(new CommitRecord(tid, Id, runtime.Serializer.Serialize(record.Working)));
            }
            catch
            {
                Forget(tid);
                throw;
            }
        }

        records.Remove(tid);
        Apply(record, decision);
    }

    public Task Abort(long tid)
    {
        Forget(tid);
        return Task.CompletedTask;
    }

    // The ACT committed here: the batches it waited for are committed (their BatchCommit may still
    // be on its way), then its own write; then the locks and its place in the schedule go.
    private void Apply(ActRecord<TState> record, HybridDecision decision)
    {
        versions.CommitBatchesThrough(decision.CommittedBid);
        if (record.ReleasedEarly)
        {
            // Its version and the ones before it (its dependencies, committed first) become
            // committed; not found: a later version that built on it has committed already.
            var at = ActiveVersionOf(record.Context.Tid);
            if (at >= 0)
            {
                var state = activeVersions[at].State;
                activeVersions.RemoveRange(0, at + 1);
                versions.CommitAct(state);
            }
        }
        else if (record.Working is { } written)
        {
            // Built on the newest active version while holding the lock: every active version
            // is one of its dependencies, all committed before it.
            activeVersions.Clear();
            versions.CommitAct(written);
        }

        precedingActsMaxBeforeBid = Math.Max(precedingActsMaxBeforeBid, decision.MaxBeforeBid);
        @lock.Release(record.Context.Tid);
        schedule.LeaveAct(record.Group, record.Context.Tid);
    }

    private void Forget(long tid)
    {
        @lock.Release(tid);
        if (records.Remove(tid, out var record))
        {
            if (record.ReleasedEarly && ActiveVersionOf(tid) is var at and >= 0)
            {
                // Cascading abort: the versions built on this one go too; their ACTs depend on
                // this one and will abort when they validate.
                activeVersions.RemoveRange(at, activeVersions.Count - at);
            }

            schedule.LeaveAct(record.Group, tid);
        }
    }

    private int ActiveVersionOf(long tid)
    {
        for (var i = 0; i < activeVersions.Count; i++)
        {
            if (activeVersions[i].Tid == tid)
            {
                return i;
            }
        }

        return -1;
    }

    // The newest state an ACT may build on: the last active version, else the last completed batch's or the committed one.
    private TState Latest => activeVersions.Count > 0 ? activeVersions[^1].State : versions.Latest;

    // The ACT joined a group behind a batch that has not completed here: wait for it, bounded by
    // the deadlock timeout (§4.4.2), and leave the group at once if that fails, so the batch after
    // it is not held up by an ACT that will abort.
    private async Task Admit(RunningAct act, ActRecord<TState> record)
    {
        var before = schedule.BatchBefore(record.Group);
        try
        {
            await act.WaitForBatch(before, record.Group.WhenOpen, $"batch {before} to complete on actor {Id}", runtime.Options.DeadlockTimeout, AbortReason.Deadlock, runtime.Clock);
        }
        catch
        {
            Forget(record.Context.Tid);
            throw;
        }

        NoteBatchBefore(record);
    }

    // The ACT is admitted: it runs after the last batch that completed here.
    private void NoteBatchBefore(ActRecord<TState> record)
    {
        var (bid, coordinator, committed) = versions.LastBatch;
        record.BeforeBatch = new BatchRef(bid, coordinator ?? string.Empty);
        record.BeforeCommitted = committed;
    }

    // Waits for the lock. Meanwhile the ACTs ahead of this one precede it, so the batches it holds
    // up are held up by them too (see RunningAct): a PACT/ACT deadlock through a lock wait is then
    // found when they wait for a batch, not after the deadlock timeout.
    private async ValueTask<TState> AwaitLock(ValueTask acquire, ActRecord<TState> record, AccessMode mode)
    {
        var me = runtime.Active.Find(record.Context.Tid);
        var ahead = new List<RunningAct>();
        if (me is not null)
        {
            foreach (var tid in @lock.Ahead(record.Context.Tid))
            {
                if (runtime.Active.Find(tid) is { } holder)
                {
                    ahead.Add(holder);
                    me.BlockedBy(holder);
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
                me!.Unblocked(holder);
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

        return mode == AccessMode.ReadWrite
            ? record.Working ??= runtime.Serializer.Copy(Latest)
            : record.Working ?? Latest;
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
        return record.Learned.Snapshot(Id, role, record.BeforeBatch, record.BeforeCommitted, after, precedingActsMaxBeforeBid, record.DependsOn);
    }
}

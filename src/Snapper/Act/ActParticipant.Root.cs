using Snapper.Diagnostics;
using Snapper.Grains;
using Snapper.Hybrid;

namespace Snapper.Act;

/// <summary>
/// The root's side (Snapper §4.3.3): an ACT that starts on this actor is coordinated here — the
/// serializability check (§4.4.3), commit dependencies (Thorp §III.F), two-phase commit — and the
/// messages other actors send its <see cref="RunningAct"/> arrive here.
/// </summary>
internal sealed partial class ActParticipant<TState>
{
    // An unprepared record is given up this long after its transaction's deadline.
    private static readonly TimeSpan ExpiryGrace = TimeSpan.FromSeconds(1);
    private static readonly TimeSpan DependencyRetry = TimeSpan.FromMilliseconds(200);

    private readonly ActRoots roots;
    private Action expiry = static () => { };
    private Action<TimeSpan> keepAlive = static _ => { };
    private ISnapperParticipant? self;

    /// <summary>The ACTs rooted here (for tests and the actor's quiescence).</summary>
    internal ActRoots Roots => roots;

    /// <summary>
    /// The actor's hooks: <paramref name="onRecord"/> when a record is added (so stale ones are
    /// expired), <paramref name="onRemembered"/> when an outcome must be answered for a while (so
    /// the actor is not deactivated meanwhile), and the actor itself (<paramref name="actor"/>), which
    /// an ACT rooted here asks in place for its vote and commit.
    /// </summary>
    public void Attach(Action onRecord, Action<TimeSpan> onRemembered, ISnapperParticipant actor)
    {
        expiry = onRecord;
        keepAlive = onRemembered;
        self = actor;
    }

    /// <summary>
    /// The root of ACT <paramref name="ctx"/> (Snapper §4.3.3): runs the first call
    /// (<paramref name="invoke"/>) as a participant — which answers only once every call of the
    /// transaction has returned — then decides: the serializability check, 2PC, and the answer to
    /// the caller. Returns null if it committed, else what the caller is told: the
    /// <see cref="TransactionAbortedException"/> (returned, not thrown: docs/architecture.md, "Aborts
    /// are values inside Snapper"), or a <see cref="TransactionInDoubtException"/> where the
    /// outcome could not be learned.
    /// </summary>
    public async Task<Exception?> RunAsRoot(TxnContext ctx, bool earlyLockRelease, Func<Task> invoke)
    {
        var started = runtime.Clock.GetTimestamp();
        var act = roots.Begin(ctx.Tid);
        if (earlyLockRelease)
        {
            runtime.ActOutcomes.Began(act); // its dependents ask the silo, not this activation
        }

        using var span = SnapperTracing.StartTransaction(ctx);
        Exception? failure;
        var remember = earlyLockRelease;
        try
        {
            var decided = await Decide(ctx, act, earlyLockRelease, invoke);
            failure = decided.Aborted;
            remember |= decided.Undelivered;
        }
        catch (TransactionAbortedException refused)
        {
            failure = refused; // a participant voted no: ActCommitCoordinator aborted them all
        }
        catch (TransactionInDoubtException inDoubt)
        {
            failure = inDoubt;
        }
        finally
        {
            act.SetDecided(false); // no-ops once committed
            act.SetDurable(false);

            // Remembered for those who may ask: dependents of an early-released ACT, and a writer
            // the Commit did not reach (it asks once its record is past the deadline).
            roots.End(ctx.Tid, mayHaveDependents: remember);
            if (earlyLockRelease)
            {
                runtime.ActOutcomes.Ended(ctx.Tid, roots.Retention);
            }

            if (remember)
            {
                keepAlive(roots.Retention);
            }
        }

        switch (failure)
        {
            case null:
                runtime.Metrics.Committed(TxnMode.Act, runtime.Clock.GetElapsedTime(started));
                SnapperTracing.Committed(span);
                break;
            case TransactionAbortedException aborted:
                runtime.Metrics.Aborted(TxnMode.Act, aborted.Reason, runtime.Clock.GetElapsedTime(started));
                SnapperTracing.Aborted(span, aborted);
                break;
            default:
                runtime.Metrics.InDoubt(TxnMode.Act, runtime.Clock.GetElapsedTime(started));
                break;
        }

        return failure;
    }

    // Runs the ACT and commits it (null) or aborts it everywhere it reached (the abort); says
    // whether a committed writer could not be told.
    private async Task<(TransactionAbortedException? Aborted, bool Undelivered)> Decide(TxnContext ctx, RunningAct act, bool earlyLockRelease, Func<Task> invoke)
    {
        CallReport report;
        using (SnapperTracing.StartPhase(SnapperTracing.Execute))
        {
            report = await Invoke(ctx, invoke);
        }

        var info = report.Info;
        if (report.Failure is { } own)
        {
            info.Fail(own); // the first failure anywhere in the call tree names the abort
        }
        else if (runtime.Clock.GetUtcNow() > ctx.Deadline)
        {
            info.Fail(new TransactionAbortedException(AbortReason.Timeout, $"ran past its deadline of {runtime.Options.TransactionTimeout}"));
        }

        var failure = info.Failure;
        var decision = HybridDecision.None;
        if (failure is null)
        {
            (decision, var refusal) = await SerializabilityCheck.Run(act, info, b => runtime.BatchOutcome(b.Bid, b.Coordinator), runtime.DeadlockTimeout, runtime.Clock);
            failure = refusal;
            if (failure is null && !earlyLockRelease)
            {
                try
                {
                    // Holding its locks, it may as well wait here: nothing it logs may claim a
                    // commit before the ACTs it read from have committed.
                    await CommitDependency.WaitDurable(ctx.Tid, info, DependencyOutcome, ctx.Deadline, runtime.Clock);
                }
                catch (TransactionAbortedException dependencyAborted)
                {
                    failure = dependencyAborted;
                }
            }
        }

        if (failure is not null)
        {
            await runtime.Commit.Abort(ctx.Tid, info, Id, self!);
            return (ActCommitCoordinator.AbortedBy(ctx.Tid, failure), false);
        }

        var applied = await runtime.Commit.Commit(ctx, act, info, decision, earlyLockRelease, DependencyOutcome, self!);
        act.SetDecided(true);
        act.SetDurable(true);
        return (null, !applied);
    }

    /// <summary>Participant → root: batch <paramref name="bid"/> is behind ACT <paramref name="tid"/> (or behind an ACT it waits for).</summary>
    public void OnBatchBehind(long tid, long bid) => roots.Find(tid)?.NoteBatchBehind(bid);

    /// <summary>Participant → root: ACT <paramref name="tid"/> started (or stopped) waiting for <paramref name="holder"/>'s lock.</summary>
    public void OnLockWait(long tid, ActDependency holder, bool waiting)
    {
        if (roots.Find(tid) is { } act)
        {
            if (waiting)
            {
                act.BlockedBy(holder);
            }
            else
            {
                act.Unblocked(holder.Tid);
            }
        }
    }

    /// <summary>Participant → root: ACT <paramref name="tid"/> waits on <paramref name="participant"/> for batch <paramref name="bid"/>.</summary>
    public void OnWatchBatch(long tid, long bid, ActorId participant)
    {
        if (roots.Find(tid) is { } act)
        {
            act.Watch(bid, participant);
        }
        else
        {
            Send(participant, p => p.BatchWaitDoomed(tid, 0)); // the ACT has ended: nothing to wait for
        }
    }

    /// <summary>Root → participant: ACT <paramref name="tid"/>'s wait here for a batch is doomed (<paramref name="behind"/> is behind the ACT).</summary>
    public void OnBatchWaitDoomed(long tid, long behind)
    {
        if (records.TryGetValue(tid, out var record))
        {
            record.Doomed?.TrySetResult(behind);
        }
    }

    /// <summary>Another ACT's root → root: the outcome of ACT <paramref name="tid"/>, a commit dependency (durable, or merely ordered in the log).</summary>
    public Task<bool> ActOutcome(long tid, bool durable) =>
        roots.Knows(tid) || !runtime.Departed.Any ? (durable ? roots.WhenDurable(tid) : roots.WhenDecided(tid))
        : runtime.Departed.ActCommittedNow(tid); // its root may have been on the silo that died: the logs know

    // Asked again until it answers: a root whose silo died answers, from the logs, once the failover
    // has sealed and it has activated elsewhere. Failing instead would be wrong once this ACT's own
    // CoordCommit is appended: recovery would count it committed with the dependency, so the live
    // path must wait for the dependency's true outcome too (a deadline, where there is one, still
    // bounds the wait: CommitDependency stops waiting, not this task).
    private async Task<bool> DependencyOutcome(ActDependency dependency, bool durable)
    {
        while (true)
        {
            try
            {
                if (dependency.Root == Id)
                {
                    return await ActOutcome(dependency.Tid, durable);
                }

                // The silo answers even while the root's activation is going (ActOutcomes).
                return await runtime.ActOutcomes.Ask(dependency, durable)
                    ?? await runtime.Resolver.Participant(dependency.Root).ActOutcome(dependency.Tid, durable);
            }
            catch (Exception e) when (e is not TransactionAbortedException)
            {
                LogMessages.DeliveryFailed(runtime.Diagnostics, e, dependency.Root);
                await Task.Delay(DependencyRetry, runtime.Clock);
            }
        }
    }

    // A message for ACT tid's root: handled in place if the root is this actor, else sent.
    private void SignalRoot(ActorId root, Func<ISnapperParticipant, Task> message, Action<RunningAct> local, long tid)
    {
        if (root == Id)
        {
            if (roots.Find(tid) is { } act)
            {
                local(act);
            }
        }
        else
        {
            Send(root, message);
        }
    }

    private void Send(ActorId actor, Func<ISnapperParticipant, Task> message) => _ = SendAsync(actor, message);

    private async Task SendAsync(ActorId actor, Func<ISnapperParticipant, Task> message)
    {
        try
        {
            await message(runtime.Resolver.Participant(actor));
        }
        catch (Exception e)
        {
            LogMessages.DeliveryFailed(runtime.Diagnostics, e, actor);
        }
    }

    /// <summary>What the ACTs rooted here tell other actors.</summary>
    private sealed class Signals(ActParticipant<TState> owner) : IActSignals
    {
        public void BatchBehind(ActDependency holder, long bid) =>
            owner.SignalRoot(holder.Root, p => p.BatchBehind(holder.Tid, bid), act => act.NoteBatchBehind(bid), holder.Tid);

        public void Doom(ActorId participant, long tid, long behind)
        {
            if (participant == owner.Id)
            {
                owner.OnBatchWaitDoomed(tid, behind);
            }
            else
            {
                owner.Send(participant, p => p.BatchWaitDoomed(tid, behind));
            }
        }
    }
}

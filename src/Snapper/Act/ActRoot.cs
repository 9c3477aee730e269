using Snapper.Diagnostics;
using Snapper.Hybrid;
using Snapper.Protocol;

namespace Snapper.Act;

/// <summary>
/// The root of the ACTs that start on one actor (Snapper §4.3.3): it runs the first call through
/// the actor's <see cref="ActParticipant{TState}"/>, then decides — the serializability check
/// (§4.4.3), commit dependencies (Thorp §III.F), two-phase commit through the silo's
/// <see cref="ActCommitCoordinator"/> — and takes the messages other actors send its
/// <see cref="RunningAct"/>s.
/// </summary>
internal sealed class ActRoot<TState>
    where TState : class
{
    private static readonly TimeSpan DependencyRetry = TimeSpan.FromMilliseconds(200);

    private readonly ActParticipant<TState> participant;
    private readonly ActServices services;
    private readonly ActRoots roots;
    private Action<TimeSpan> keepAlive = static _ => { };
    private ISnapperParticipant? self;

    public ActRoot(ActParticipant<TState> participant, ActServices services)
    {
        this.participant = participant;
        this.services = services;
        roots = new ActRoots(new Signals(this), 2 * services.Options.TransactionTimeout, services.Clock);
    }

    /// <summary>The ACTs rooted here (for tests and the actor's quiescence).</summary>
    internal ActRoots Roots => roots;

    private ActorId Id => participant.Id;

    /// <summary>
    /// The actor's hooks: <paramref name="onRemembered"/> when an outcome must be answered for a
    /// while (so the actor is not deactivated meanwhile), and the actor itself
    /// (<paramref name="actor"/>), which an ACT rooted here asks in place for its vote and commit.
    /// </summary>
    public void Attach(Action<TimeSpan> onRemembered, ISnapperParticipant actor)
    {
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
        var started = services.Clock.GetTimestamp();
        if (services.Clock.GetUtcNow() > ctx.Deadline)
        {
            // Late on its way, not a context used outside its transaction (that is a nested call's
            // misuse, refused by the participant): nothing ran, so there is nothing to abort.
            var late = Aborts.StartPastDeadline(ctx.Tid, Id, services.Options.TransactionTimeout);
            services.Metrics.Aborted(TxnMode.Act, late, TimeSpan.Zero);
            return late;
        }

        var act = roots.Begin(ctx.Tid);
        if (earlyLockRelease)
        {
            services.ActOutcomes.Began(act); // its dependents ask the silo, not this activation
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
        catch (TransactionAbortedException aborted)
        {
            failure = aborted; // thrown on the way to a decision: everything was aborted
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
                services.ActOutcomes.Ended(ctx.Tid, roots.Retention);
            }

            if (remember)
            {
                keepAlive(roots.Retention);
            }
        }

        switch (failure)
        {
            case null:
                services.Metrics.Committed(TxnMode.Act, services.Clock.GetElapsedTime(started));
                SnapperTracing.Committed(span);
                break;
            case TransactionAbortedException aborted:
                services.Metrics.Aborted(TxnMode.Act, aborted, services.Clock.GetElapsedTime(started));
                SnapperTracing.Aborted(span, aborted);
                break;
            default:
                services.Metrics.InDoubt(TxnMode.Act, services.Clock.GetElapsedTime(started));
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
            report = await participant.Invoke(ctx, invoke);
        }

        var info = report.Info;
        if (report.Failure is { } own)
        {
            info.Fail(own); // the first failure anywhere in the call tree names the abort
        }
        else if (services.Clock.GetUtcNow() > ctx.Deadline)
        {
            info.Fail(new TransactionAbortedException(AbortReason.Timeout, $"ran past its deadline of {services.Options.TransactionTimeout}"));
        }

        var failure = info.Failure;
        var decision = HybridDecision.None;
        if (failure is null)
        {
            (decision, var refusal) = await SerializabilityCheck.Run(act, info, b => services.BatchOutcome(b.Bid, b.Coordinator), services.DeadlockTimeout, services.Clock);
            failure = refusal;
            if (failure is null && !earlyLockRelease)
            {
                try
                {
                    // Holding its locks, it may as well wait here: nothing it logs may claim a
                    // commit before the ACTs it read from have committed.
                    await CommitDependency.WaitDurable(ctx.Tid, info, DependencyOutcome, ctx.Deadline, services.Clock);
                }
                catch (TransactionAbortedException dependencyAborted)
                {
                    failure = dependencyAborted;
                }
            }
        }

        if (failure is not null)
        {
            await services.Commit.Abort(ctx.Tid, info, Id, self!);
            return (Aborts.AbortedBy(ctx.Tid, failure, info.Reached()), false);
        }

        bool applied;
        try
        {
            applied = await services.Commit.Commit(ctx, act, info, decision, earlyLockRelease, DependencyOutcome, self!);
        }
        catch (TransactionAbortedException refused)
        {
            // A participant voted no: ActCommitCoordinator aborted them all. A promoted run declares what this attempt reached.
            return (Aborts.AbortedBy(ctx.Tid, refused, info.Reached()), false);
        }

        act.SetDecided(true);
        act.SetDurable(true);
        return (null, !applied);
    }

    /// <summary>Participant → root: batch <paramref name="bid"/> is behind ACT <paramref name="tid"/> (or behind an ACT it waits for).</summary>
    public void OnBatchBehind(long tid, long bid, ActorId at) => roots.Find(tid)?.NoteBatchBehind(bid, at);

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
            Send(participant, p => p.BatchWaitDoomed(tid, 0, default)); // the ACT has ended: nothing to wait for
        }
    }

    /// <summary>Another ACT's root → root: the outcome of ACT <paramref name="tid"/>, a commit dependency (durable, or merely ordered in the log).</summary>
    public Task<bool> ActOutcome(long tid, bool durable) =>
        roots.Knows(tid) || !services.Departed.Any ? (durable ? roots.WhenDurable(tid) : roots.WhenDecided(tid))
        : services.Departed.ActCommittedNow(tid); // its root may have been on the silo that died: the logs know

    // Asked again until it answers: a root whose silo died answers, from the logs, once the failover
    // has sealed and it has activated elsewhere. Failing instead would be wrong once this ACT's own
    // CoordCommit is appended: recovery would count it committed with the dependency, so the live
    // path must wait for the dependency's true outcome too (a deadline, where there is one, still
    // bounds the wait: CommitDependency stops waiting, not this task).
    public async Task<bool> DependencyOutcome(ActDependency dependency, bool durable)
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
                return await services.ActOutcomes.Ask(dependency, durable)
                    ?? await services.Resolver.Participant(dependency.Root).ActOutcome(dependency.Tid, durable);
            }
            catch (Exception e) when (e is not TransactionAbortedException)
            {
                LogMessages.DeliveryFailed(services.Diagnostics, e, dependency.Root);
                await Task.Delay(DependencyRetry, services.Clock);
            }
        }
    }

    /// <summary>A message for ACT <paramref name="tid"/>'s root: handled in place if the root is this actor, else sent.</summary>
    public void SignalRoot(ActorId root, Func<ISnapperParticipant, Task> message, Action<RunningAct> local, long tid)
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

    /// <summary>Sends <paramref name="message"/> to <paramref name="actor"/>, one-way; a failure is logged.</summary>
    public void Send(ActorId actor, Func<ISnapperParticipant, Task> message) => services.Resolver.Send(actor, message, services.Diagnostics);

    /// <summary>What the ACTs rooted here tell other actors.</summary>
    private sealed class Signals(ActRoot<TState> owner) : IActSignals
    {
        public void BatchBehind(ActDependency holder, long bid, ActorId at) =>
            owner.SignalRoot(holder.Root, p => p.BatchBehind(holder.Tid, bid, at), act => act.NoteBatchBehind(bid, at), holder.Tid);

        public void Doom(ActorId participant, long tid, long behind, ActorId at)
        {
            if (participant == owner.Id)
            {
                owner.participant.OnBatchWaitDoomed(tid, behind, at);
            }
            else
            {
                owner.Send(participant, p => p.BatchWaitDoomed(tid, behind, at));
            }
        }
    }
}

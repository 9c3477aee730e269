using System.Collections.Immutable;
using Snapper.Concurrency;
using Snapper.Diagnostics;
using Snapper.Logging;
using Snapper.Protocol;
using Snapper.Scheduling;

namespace Snapper.Act;

/// <summary>
/// How ACTs end on this actor (Snapper §4.3.3): its vote and the root's Commit or Abort (2PC with
/// presumed abort), records given up past their deadline, the activation going, a checkpoint
/// settling, and the writes prepared by an activation on a silo that died. Running them is in
/// <c>ActParticipant.cs</c>; the root's side is <see cref="ActRoot{TState}"/>.
/// </summary>
internal sealed partial class ActParticipant<TState>
{
    // An unprepared record is given up this long after its transaction's deadline.
    private static readonly TimeSpan ExpiryGrace = TimeSpan.FromSeconds(1);

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
        if (earlyLockRelease && activeVersions.Count < services.Options.MaxCommitDependencyChain)
        {
            // Thorp: release at Prepare, before the write below is durable; later ACTs build on
            // this state and depend on this ACT. Past the chain limit it keeps its lock instead.
            activeVersions.Add((tid, new ActDependency(tid, record.Context.Root, record.Context.RootSilo), record.Working, record.WorkingVersion));
            record.ReleasedEarly = true;
            @lock.Release(tid);
        }

        if (logger is not null)
        {
            var (state, delta) = versions.LogForm.Encode(services.Serializer, record.Base, record.Working!);
            await logger.Append(new PrepareRecord(tid, Id, record.Context.Root, state) { Version = record.WorkingVersion, Delta = delta });
        }

        return Vote.Yes;
    }

    public Task Commit(long tid, HybridDecision decision)
    {
        if (undecided.Settle(tid, committed: true))
        {
            return Task.CompletedTask;
        }

        if (records.Remove(tid, out var record))
        {
            Apply(record, decision);
            committedHere.Remember(tid);

            // Informational: recovery decides from the root's CoordCommit, so the vote-to-commit
            // path does not wait for this write. A failure is reported by the logger.
            _ = logger?.Append(new CommitRecord(tid, Id, ReadOnlyMemory<byte>.Empty));
        }
        else if (!undecided.WasSettledByRoot(tid) && !committedHere.Contains(tid))
        {
            // Not prepared here, nor handed over by an earlier activation, nor settled by asking
            // the root, nor committed by an earlier try of this Commit: a write it prepared was
            // lost. Said loudly; never silently.
            LogMessages.CommitOfUnknownAct(services.Diagnostics, Id, tid);
        }

        return Task.CompletedTask;
    }

    public async Task CommitOnePhase(long tid, HybridDecision decision)
    {
        if (!records.TryGetValue(tid, out var record) || record.State != ActRecordState.Active)
        {
            // Its record expired, or its activation went with it: nothing of it was logged here.
            throw new TransactionAbortedException(AbortReason.Failure, $"{Id} no longer knows the transaction") { Tid = tid };
        }

        record.State = ActRecordState.Committing; // this actor decides now: no expiry, no other call
        if (logger is not null && record.Working is not null)
        {
            try
            {
                // Durable before the locks go: a later transaction must never see a lost write.
                var (state, delta) = versions.LogForm.Encode(services.Serializer, record.Base, record.Working);
                await logger.Append(new CommitRecord(tid, Id, state) { Version = record.WorkingVersion, Delta = delta });
            }
            catch (Exception e)
            {
                // A failed append is not durable (the logger settles it as lost): aborted, for sure.
                Forget(tid);
                throw new TransactionAbortedException(AbortReason.Failure, $"{Id} could not log its commit: {e.Message}", e) { Tid = tid };
            }
        }

        records.Remove(tid);
        Apply(record, decision);
    }

    public Task Abort(long tid)
    {
        if (records.TryGetValue(tid, out var committing) && committing.State == ActRecordState.Committing)
        {
            return Task.CompletedTask; // a one-phase commit is this actor's decision, not the root's
        }

        if (!records.ContainsKey(tid))
        {
            refusedOnArrival.Remember(tid); // a call of it that was held on its way may still come
        }

        undecided.Settle(tid, committed: false);
        Forget(tid);
        return Task.CompletedTask;
    }

    /// <summary>
    /// <see cref="ISnapperParticipant.AbortUnanswered"/>: the root heard nothing of what the lost
    /// call did, so the actors its calls from here reached are told here (each lost call of theirs
    /// passing it on in turn), rather than holding their locks until the deadline; so are those its
    /// calls still under way are on (the call may only have been slow, and still be running). The
    /// root's own record forwards nothing: its Abort goes to every actor it knows of already.
    /// </summary>
    public Task AbortUnanswered(long tid)
    {
        if (records.TryGetValue(tid, out var record) && record.State == ActRecordState.Active && record.Context.Root != Id)
        {
            var lost = record.Learned.Unanswered;
            foreach (var actor in record.Learned.Participants.Keys)
            {
                if (actor != Id)
                {
                    root.Send(actor, lost is not null && lost.Contains(actor) ? p => p.AbortUnanswered(tid) : p => p.Abort(tid));
                }
            }

            foreach (var actor in waited.TargetsOf(tid).Union(record.Calling ?? []).Where(a => a != Id && !record.Learned.Participants.ContainsKey(a)))
            {
                root.Send(actor, p => p.AbortUnanswered(tid));
            }
        }

        // A call of it still on its way here, or coming back from a call still running, is refused.
        refusedOnArrival.Remember(tid);
        return Abort(tid);
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
                var (_, _, state, version) = activeVersions[at];
                activeVersions.RemoveRange(0, at + 1);
                versions.CommitAct(state, version);
            }
        }
        else if (record.Working is { } written)
        {
            // Built on the newest active version while holding the lock: every active version
            // is one of its dependencies, all committed before it.
            activeVersions.Clear();
            versions.CommitAct(written, record.WorkingVersion);
        }

        precedingActsMaxBeforeBid = Math.Max(precedingActsMaxBeforeBid, decision.MaxBeforeBid);
        @lock.Release(record.Context.Tid);
        schedule.LeaveAct(record.Group, record.Context.Tid);
    }

    private void Forget(long tid)
    {
        waited.Forget(tid);
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

    private static readonly TimeSpan SettlePoll = TimeSpan.FromMilliseconds(20);

    /// <summary>
    /// Completes once what <paramref name="step"/> names, as it stands now, is over here; throws
    /// <see cref="TimeoutException"/> past <paramref name="until"/> (the round is then given up).
    /// </summary>
    /// <remarks>
    /// Polls: it runs once per actor per checkpoint round, and the transactions it waits for end
    /// through many paths (commit, abort, expiry, a cascade) that need not know a checkpoint waits.
    /// </remarks>
    public async Task Settle(SettleStep step, DateTimeOffset until)
    {
        Func<bool> pending;
        if (step == SettleStep.Writes)
        {
            var tids = records.Keys.ToArray();
            var newestBatch = versions.NewestUncommittedBid;
            pending = () => tids.Any(records.ContainsKey) || versions.HasUncommittedThrough(newestBatch);
        }
        else
        {
            var tids = root.Roots.RunningTids.ToArray();
            pending = () => tids.Any(t => root.Roots.Find(t) is not null);
        }

        while (pending())
        {
            if (services.Clock.GetUtcNow() > until)
            {
                throw new TimeoutException($"{Id} still had transactions of the checkpoint's step {step} running at its deadline.");
            }

            await Task.Delay(SettlePoll, services.Clock);
        }
    }

    /// <summary>Completes once no write prepared in a previous activation that died is undecided here; transactional calls wait for it.</summary>
    public Task WhenUndecidedSettled => undecided.WhenSettled;

    /// <summary>This activation follows one that died having prepared <paramref name="prepared"/>: ask their roots how they ended.</summary>
    public void AdoptUndecided(IReadOnlyList<PrepareRecord> prepared)
    {
        undecided.Adopt(prepared);
        foreach (var write in prepared)
        {
            _ = AskRoot(write.Tid, write.Coordinator, () => undecided.Contains(write.Tid));
        }
    }

    /// <summary>
    /// The activation is going (deactivated, or migrating): the writes prepared here for ACTs not
    /// decided yet, for the next activation to settle with their roots (<see cref="AdoptUndecided"/>).
    /// Unprepared records are dropped with their locks: their roots' Prepare finds none here and
    /// the ACT aborts. Called once no call of the activation runs any more.
    /// </summary>
    public ImmutableArray<PreparedWrite> HandOver()
    {
        var writes = ImmutableArray.CreateBuilder<PreparedWrite>();
        foreach (var (tid, record) in records)
        {
            if (record.State == ActRecordState.Prepared && record.Working is { } written)
            {
                writes.Add(new PreparedWrite(tid, record.Context.Root, record.WorkingVersion, services.Serializer.Serialize(written), Delta: false));
            }
        }

        foreach (var write in undecided.Writes)
        {
            writes.Add(new PreparedWrite(write.Tid, write.Coordinator, write.Version, write.State, write.Delta));
        }

        return writes.ToImmutable();
    }

    /// <summary>
    /// The activation is going: the ACTs lately committed here (by their Commit, or by asking their
    /// root), so that a Commit sent again to the next activation (the first try's answer was late)
    /// is no news there rather than a "write was lost" alarm.
    /// </summary>
    public ImmutableArray<long> HandOverCommitted() => [.. committedHere.Tids.Concat(undecided.SettledByRootTids).Distinct()];

    /// <summary>
    /// ACTs committed before this activation (<see cref="HandOverCommitted"/>), or whose handed-over
    /// write a later committed version already covers: a Commit for one of them is no news.
    /// </summary>
    public void AdoptCommitted(IEnumerable<long> tids)
    {
        foreach (var tid in tids)
        {
            committedHere.Remember(tid);
        }
    }

    /// <summary>
    /// A silo died: the ACTs here wait for their roots, some of which may have died with it (the
    /// records of those would hold their locks until their deadline, and the prepared ones for
    /// ever). Ask each root; one that lost the ACT answers from the logs (<see cref="ActRoot{TState}.ActOutcome"/>).
    /// </summary>
    public void AskRootsOfUndecided()
    {
        foreach (var (tid, record) in records)
        {
            _ = AskRoot(tid, record.Context.Root, () => records.ContainsKey(tid));
        }
    }

    // The root is asked until it answers (DependencyOutcome: a root on the dead silo activates
    // elsewhere once the failover is sealed); the ACT is then settled here as the root would have:
    // an abort takes it back; a commit applies a prepared write (a write not prepared here cannot
    // have been part of a commit: it was made by a call that outlived its transaction, and expires).
    private async Task AskRoot(long tid, ActorId root, Func<bool> stillUndecided)
    {
        var committed = await this.root.DependencyOutcome(new ActDependency(tid, root), durable: true);
        if (!stillUndecided())
        {
            return; // the root's own Commit or Abort came first
        }

        undecided.SettledByRoot(tid); // the root's own Commit may still come: it is no news then

        if (!committed)
        {
            await Abort(tid);
        }
        else if (undecided.Contains(tid))
        {
            await Commit(tid, Protocol.HybridDecision.None);
        }
        else if (records.TryGetValue(tid, out var record) && record.State == ActRecordState.Prepared)
        {
            // The batch before the ACT here had committed when its root decided: it commits first,
            // or its later BatchCommit would put back the state the ACT's write replaced.
            var before = record.BeforeBatch.Bid;
            await Commit(tid, new Protocol.HybridDecision(before, before));
        }
    }

    void IActSide.BatchStarted(SubBatch batch) => seenBatches = true;

    // Each ACT of the group precedes the batch: tell its root (the batch is in its AfterSet).
    void IActSide.BatchPlacedBehind(ActGroup group, long bid)
    {
        foreach (var tid in group.Members)
        {
            if (records.TryGetValue(tid, out var record))
            {
                root.SignalRoot(record.Context.Root, p => p.BatchBehind(tid, bid, Id), act => act.NoteBatchBehind(bid, Id), tid);
            }

            if (@lock.IsEntrant(tid))
            {
                // It held nothing while it waited; now the batch waits for it (see HoldsNothing).
                @lock.RefuseWaiter(tid, new TransactionAbortedException(AbortReason.WaitDie, $"batch {bid} was placed behind it while it waited for the lock of {Id}") { Tid = tid, Blocker = @lock.InTheWay(tid) });
            }
        }
    }

    /// <summary>Root → participant: ACT <paramref name="tid"/>'s wait here for a batch is doomed (<paramref name="behind"/> is behind the ACT on <paramref name="at"/>).</summary>
    public void OnBatchWaitDoomed(long tid, long behind, ActorId at)
    {
        if (records.TryGetValue(tid, out var record))
        {
            record.Doomed?.TrySetResult((behind, at));
        }
    }

    /// <summary>
    /// The activation is going: lock waits here end now (each aborts its ACT), for the activation
    /// takes no more messages, so the Commit or Abort that would end them could not come in.
    /// </summary>
    public void Leave()
    {
        leaving = true;
        @lock.RefuseWaiters(Deactivated);

        // A call running here that waits on another actor keeps this activation, which takes no
        // message meanwhile; if what it waits for there waits on a message to this actor (a call
        // back into it, a lock held by an ACT whose Prepare is queued here), neither ends before
        // the response timeout. So the actors its calls wait on hear it, and pass it on: calls back
        // into this actor give up, lock waits end. Its own calls into itself give up here.
        foreach (var tid in records.Keys.ToList())
        {
            OnStopWaiting(tid, Id);
        }
    }

    /// <summary>
    /// A call of ACT <paramref name="tid"/> failed on its way from <paramref name="at"/> (for
    /// <paramref name="reason"/>): the ACT aborts. Its lock wait here ends, a later one is refused, and the notice goes on down to the
    /// actors its calls from here wait on. Nothing is kept where the ACT has no record: a call of it
    /// still on its way runs as it would (refused on arrival, it would fail with another reason,
    /// which could reach the root first).
    /// </summary>
    public void OnDoomed(long tid, ActorId at, AbortReason reason)
    {
        if (!records.TryGetValue(tid, out var record) || record.DoomedAt is not null || record.State != ActRecordState.Active)
        {
            return; // heard before, or past its calls
        }

        (record.DoomedAt, record.DoomedBy) = (at, reason);
        @lock.RefuseWaiter(tid, Doomed(tid, at, reason));
        foreach (var target in waited.TargetsOf(tid))
        {
            root.Send(target, p => p.ActDoomed(tid, at, reason));
        }
    }

    // The failure a doomed ACT's lock wait ends with: the reason of the call that doomed it, since
    // this one may reach the root first (another branch of the call tree).
    private TransactionAbortedException Doomed(long tid, ActorId at, AbortReason reason) =>
        new(reason, $"a call of the transaction failed ({reason}) on the way from {at}, so it stopped waiting for the lock of {Id}") { Tid = tid, Blocker = @lock.InTheWay(tid) };

    private TransactionAbortedException Deactivated(long tid) =>
        new(AbortReason.Failure, $"actor {Id} was deactivated while the transaction waited for its lock") { Tid = tid };

    /// <summary>
    /// Actor <paramref name="going"/>, which ACT <paramref name="tid"/> reached, is going: the ACT's
    /// lock wait here ends (the ACT aborts), its calls from here back into that actor give up, and
    /// the notice goes on to the actors its other calls from here wait on.
    /// </summary>
    public void OnStopWaiting(long tid, ActorId going)
    {
        if (!records.TryGetValue(tid, out var record))
        {
            refusedOnArrival.Remember(tid); // its call may still be on its way
            return;
        }

        if (waited.Going(tid, going, out var gaveUp) is not { } onward)
        {
            return; // heard before
        }

        if (gaveUp)
        {
            // The call given up is queued at the going activation and runs in the next one, where
            // nobody waits for it: its record there must not hold a lock until the ACT's deadline.
            // The ACT aborts (the call's failure is in its execution info), so this Abort is safe.
            // (A call into itself already running here when it was given up leaves nothing there:
            // the Abort then only makes the next activation refuse the ACT.)
            root.Send(going, p => p.AbortUnanswered(tid)); // what its calls there reached is known only there
        }

        @lock.RefuseWaiter(tid, new TransactionAbortedException(AbortReason.Failure, $"an actor it reached was deactivated while it waited for a lock on {Id}") { Tid = tid });
        foreach (var target in onward)
        {
            root.Send(target, p => p.StopWaiting(tid, going, TxnMode.Act));
        }
    }

    // A call of ACT tid to target has just been sent: the going actors the ACT has heard of are
    // named to it too, for the calls it makes from there.
    private void PassOnGoing(long tid, ActorId target)
    {
        if (waited.GoingFor(tid) is { } goingActors)
        {
            foreach (var going in goingActors)
            {
                root.Send(target, p => p.StopWaiting(tid, going, TxnMode.Act));
            }
        }
    }

    /// <summary>
    /// Records past their transaction's deadline. Unprepared ones: their root has given up on them
    /// (or never knew of them, if a call's answer was lost), so they are aborted here; the root's
    /// Prepare, if it still comes, finds none and the ACT aborts. Prepared ones wait for the root's
    /// decision, and ask for it once (its Commit may have been lost). Returns the records left.
    /// </summary>
    public int ExpireRecords(DateTimeOffset now)
    {
        foreach (var (tid, record) in records.ToList())
        {
            if (now <= record.Context.Deadline + ExpiryGrace)
            {
                continue;
            }

            if (record.State == ActRecordState.Active)
            {
                Forget(tid);
            }
            else if (record.State == ActRecordState.Prepared && !record.RootAsked)
            {
                record.RootAsked = true;
                _ = AskRoot(tid, record.Context.Root, () => records.ContainsKey(tid));
            }
        }

        return records.Count;
    }

    // Calls started by a method that has already returned: the answer waits for them (bounded by
    // the deadline), so the root learns of every actor they reached and can roll it back.
    private async Task AwaitStrayCalls(TxnContext ctx, CallScope scope)
    {
        var left = ctx.Deadline - services.Clock.GetUtcNow();
        try
        {
            await scope.WhenDrained().WaitAsync(left > TimeSpan.Zero ? left : TimeSpan.Zero, services.Clock);
        }
        catch (TimeoutException)
        {
            // The calls still running will be expired where they landed.
        }
    }

    // Where batches run, an ACT's call not answered within the vote timeout aborts the ACT (a
    // hybrid deadlock no detector sees): the callee's activation may be going, and Orleans then
    // holds the call until the calls running there end; one of those may be a PACT whose batch
    // waits behind this ACT on another actor. The callee is told to drop the ACT with the rest
    // (a Visitor), and refuses the held call if the Abort gets there first.
    private async Task Patiently(Task answer, TxnContext ctx, CallFrame frame)
    {
        var patience = services.Commit.VoteTimeout;
        try
        {
            await answer.WaitAsync(patience, services.Clock);
        }
        catch (TimeoutException) when (!answer.IsCompleted)
        {
            _ = answer.ContinueWith(static t => _ = t.Exception, CancellationToken.None, TaskContinuationOptions.OnlyOnFaulted | TaskContinuationOptions.ExecuteSynchronously, TaskScheduler.Default);
            frame.Learned.AddUnanswered(frame.Target); // what the call reached there, the answer would have said
            throw new TransactionAbortedException(AbortReason.Deadlock, $"its call from {Id} to {frame.Target} was not answered within {patience.TotalMilliseconds:0} ms while batches run there (a wait no detector sees: the callee's activation may be going)") { Tid = ctx.Tid, Blocker = AbortBlocker.Call(frame.Target) };
        }
    }
}

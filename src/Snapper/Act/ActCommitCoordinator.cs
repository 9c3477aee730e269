using System.Collections.Immutable;
using Microsoft.Extensions.Options;
using Microsoft.Extensions.Logging;
using Snapper.Grains;
using Snapper.Diagnostics;
using Snapper.Hybrid;
using Snapper.Logging;
using Snapper.Outbox;
using Snapper.Configuration;
using Snapper.Protocol;

namespace Snapper.Act;

/// <summary>
/// Two-phase commit with presumed abort for ACTs (Snapper §4.3.3), run by the root actor.
/// Write-ahead: CoordPrepare is durable before Prepare is sent, each Prepare before its vote,
/// CoordCommit before Commit is sent. Aborts are not logged. Read-only participants release their
/// locks in phase one and skip phase two; a transaction with a single writer commits in one phase.
/// With early lock release (Thorp §II) participants release their locks at Prepare; the root then
/// waits for the ACT's commit dependencies before it logs CoordCommit.
/// </summary>
internal sealed class ActCommitCoordinator(ActorResolver actors, LogWriterPool loggers, AfterCommitOutbox outbox, TimeProvider clock, ILoggerFactory loggerFactory, IOptions<SnapperOptions> options)
{
    // A vote that has not come by then counts as no (presumed abort makes a late yes harmless): a
    // participant whose activation is going answers only once the calls running there end, and
    // one of them may wait for a lock this ACT holds.
    private readonly TimeSpan voteTimeout = TimeSpan.FromTicks(Math.Min(options.Value.TransactionTimeout.Ticks / 4, TimeSpan.FromSeconds(2).Ticks));

    /// <summary>How long a vote, an Abort or a Commit is waited for: the transaction timeout's quarter, at most 2 s.</summary>
    public TimeSpan VoteTimeout => voteTimeout;

    private const int CommitAttempts = 3;
    private static readonly TimeSpan CommitRetry = TimeSpan.FromMilliseconds(100);
    private readonly ILogger diagnostics = loggerFactory.CreateLogger("Snapper.Act");

    /// <param name="ctx">The ACT.</param>
    /// <param name="act">Its record at the root.</param>
    /// <param name="info">What its calls reported: participants, roles, dependencies.</param>
    /// <param name="decision">What the serializability check passes on to participants.</param>
    /// <param name="earlyLockRelease">Thorp's protocol instead of strict 2PL.</param>
    /// <param name="outcomes">Asks the root of a commit dependency for its outcome (durable or merely ordered).</param>
    /// <param name="root">The root actor itself, called in place: a message to itself could not be
    /// taken while its activation is deactivating (Orleans takes none until running calls end).</param>
    /// <returns>True once every writer has applied the commit; false if one could not be told
    /// (it asks the root once its record is past the deadline, so the root must remember).</returns>
    /// <exception cref="TransactionAbortedException">It aborted everywhere.</exception>
    /// <exception cref="TransactionInDoubtException">Its only writer was asked to commit and did not answer.</exception>
    public async Task<bool> Commit(TxnContext ctx, RunningAct act, ExecutionInfo info, HybridDecision decision, bool earlyLockRelease, Func<ActDependency, bool, Task<bool>> outcomes, ISnapperParticipant root)
    {
        var to = new Recipients(actors, ctx.Root, root);
        ImmutableArray<AfterCommitAction> actions = info.Actions is { Count: > 0 } registered ? [.. registered.Values] : [];
        if (earlyLockRelease)
        {
            using var releasing = SnapperTracing.StartPhase(SnapperTracing.Commit);
            releasing?.SetTag("snapper.early_lock_release", true);
            return await CommitReleasingEarly(ctx, act, info, decision, actions, outcomes, to);
        }

        var tid = ctx.Tid;
        var writers = new List<ActorId>();
        var others = new List<ActorId>();
        foreach (var (actor, participation) in info.Participants)
        {
            (participation.Role == ParticipantRole.Writer ? writers : others).Add(actor);
        }

        // Read-only participants vote ReadOnly and release their locks; they need no phase two. Their
        // votes are read: one that no longer knows the ACT (its record expired, or its activation
        // went and took the read lock with it) votes no, and a write built on that read may not commit.
        using var prepare = SnapperTracing.StartPhase(SnapperTracing.Prepare); // stopped where phase one ends
        var readOnly = PhaseOne(tid, others, decision, earlyLockRelease: false, to);
        if (writers.Count == 0)
        {
            await readOnly;
            prepare?.Stop();
            if (actions.Length > 0)
            {
                // Nothing to commit but the actions: their record and a CoordCommit make them owed.
                await LogDecision(ctx, actions, writers, to);
                outbox.Deliver(actions);
            }

            return true;
        }

        if (writers.Count == 1 && actions.Length == 0)
        {
            // (With after-commit actions the root logs the decision, so it takes two phases.)
            // The readers must have voted before the writer commits on its own.
            await AbortIfRefused(readOnly, tid, writers, to);
            prepare?.Stop();
            using var onePhase = SnapperTracing.StartPhase(SnapperTracing.Commit);
            onePhase?.SetTag("snapper.one_phase", true);
            try
            {
                await to.Get(writers[0]).CommitOnePhase(tid, decision);
            }
            catch (TransactionAbortedException refused)
            {
                throw Failed(tid, $"its only writer {writers[0]} could not commit: {refused.Message}", refused);
            }
            catch (Exception e)
            {
                // The writer decides a one-phase commit: it may have logged its record and applied
                // it, or not. Only it knows; its next reader sees whichever it was.
                throw new TransactionInDoubtException(tid, $"its only writer {writers[0]} was asked to commit and did not answer: {e.Message}", e);
            }

            return true;
        }

        await AbortIfRefused(readOnly, tid, writers, to);
        var coordinatorLog = loggers.For(ctx.Root);
        if (coordinatorLog is not null)
        {
            try
            {
                await coordinatorLog.Append(new CoordPrepareRecord(tid, [.. writers]));
            }
            catch (Exception e)
            {
                await AbortAll(tid, writers, to);
                throw Failed(tid, $"the root could not log CoordPrepare: {e.Message}", e);
            }
        }

        var votes = await PhaseOne(tid, writers, decision, earlyLockRelease: false, to);
        prepare?.Stop();
        using var commit = SnapperTracing.StartPhase(SnapperTracing.Commit);

        await LogDecision(ctx, actions, writers, to);

        // Decided: from here on the transaction is committed whatever happens to a Commit message.
        outbox.Deliver(actions);
        var applied = await Task.WhenAll(writers.Where((_, i) => votes[i].Vote == Vote.Yes).Select(actor => CommitSafely(actor, tid, decision, to)));
        return Array.TrueForAll(applied, a => a);
    }

    // Phase one of the readers, already under way: if one refused, the writers are aborted too.
    private async Task AbortIfRefused(Task<(Vote Vote, Exception? Cause)[]> readers, long tid, List<ActorId> writers, Recipients to)
    {
        try
        {
            await readers;
        }
        catch (TransactionAbortedException)
        {
            await AbortAll(tid, writers, to);
            throw;
        }
    }

    /// <summary>
    /// Thorp's protocol: Prepare everywhere (participants release their locks at once and persist
    /// their writes, group-committed with whatever else their logger is writing); once the
    /// commits of the ACTs it read from are ordered, append CoordCommit listing them and let its
    /// own dependents go on (<see cref="RunningAct.WhenDecided"/>); once that record and theirs are
    /// durable, Commit. No CoordPrepare: recovery decides from CoordCommit alone (presumed abort),
    /// and skipping it lets the locks go one storage round trip earlier. Even a single writer
    /// takes this path: a one-phase commit record could not list its dependencies.
    /// </summary>
    private async Task<bool> CommitReleasingEarly(TxnContext ctx, RunningAct act, ExecutionInfo info, HybridDecision decision, ImmutableArray<AfterCommitAction> actions, Func<ActDependency, bool, Task<bool>> outcomes, Recipients to)
    {
        var tid = ctx.Tid;
        var participants = info.Participants.Keys.ToArray();
        var votes = await PhaseOne(tid, participants, decision, earlyLockRelease: true, to);

        var writers = participants.Where((_, i) => votes[i].Vote == Vote.Yes).ToArray();
        try
        {
            await CommitDependency.WaitOrdered(tid, info, outcomes, ctx.Deadline, clock);
            var logged = false;
            if ((writers.Length > 0 || actions.Length > 0) && loggers.For(ctx.Root) is { } coordinatorLog)
            {
                // The point of no return (docs/architecture.md, "When an early-released ACT has
                // committed"): once this record is appended it may become durable at any moment,
                // and recovery then decides from it and its dependencies' records alone. So from
                // here on only what recovery can also see may abort this ACT: its own record
                // failing to become durable, or a dependency aborting. Never the deadline.
                var commitRecord = new CoordCommitRecord(tid) { DependsOn = CommitDependency.Tids(info) };
                var durable = actions.Length > 0 ? coordinatorLog.AppendBefore(new AfterCommitRecord(tid, Batch: false, actions), commitRecord) : coordinatorLog.Append(commitRecord);
                logged = true;
                act.SetDecided(true); // ordered after its dependencies' records
                try
                {
                    await durable;
                }
                catch (Exception e)
                {
                    throw Failed(tid, $"the root could not log CoordCommit: {e.Message}", e);
                }
            }

            await CommitDependency.WaitDurable(tid, info, outcomes, logged ? null : ctx.Deadline, clock);
        }
        catch (TransactionAbortedException)
        {
            // Nothing recovery counts as a commit: its CoordCommit failed, or one it depends on will
            // not count either, or it logged none.
            await AbortAll(tid, writers, to);
            throw;
        }

        // Committed for good: its record and its dependencies' are durable.
        outbox.Deliver(actions);
        var applied = await Task.WhenAll(writers.Select(actor => CommitSafely(actor, tid, decision, to)));
        return Array.TrueForAll(applied, a => a);
    }

    // The root's decision: the after-commit actions, if any, then CoordCommit, in its log (none
    // when nothing is logged). A failure aborts every writer and throws.
    private async Task LogDecision(TxnContext ctx, ImmutableArray<AfterCommitAction> actions, List<ActorId> writers, Recipients to)
    {
        if (loggers.For(ctx.Root) is not { } coordinatorLog)
        {
            return;
        }

        try
        {
            var decision = new CoordCommitRecord(ctx.Tid);
            await (actions.Length > 0 ? coordinatorLog.AppendBefore(new AfterCommitRecord(ctx.Tid, Batch: false, actions), decision) : coordinatorLog.Append(decision));
        }
        catch (Exception e)
        {
            await AbortAll(ctx.Tid, writers, to);
            throw Failed(ctx.Tid, $"the root could not log CoordCommit: {e.Message}", e);
        }
    }

    /// <summary>Rolls the ACT back on every participant it reached, the root (<paramref name="root"/>) in place.</summary>
    public async Task Abort(long tid, ExecutionInfo info, ActorId rootId, ISnapperParticipant root)
    {
        using var span = SnapperTracing.StartPhase(SnapperTracing.Abort);
        await AbortAll(tid, info.Participants.Keys, new Recipients(actors, rootId, root), info.Unanswered);
    }

    private async Task AbortAll(long tid, IEnumerable<ActorId> participants, Recipients to, HashSet<ActorId>? unanswered = null)
    {
        await Task.WhenAll(participants.Select(async actor =>
        {
            try
            {
                // Bounded like a vote: an activation that is going takes no message until its
                // running calls end, and one of those may be a root waiting here for an Abort to it.
                var participant = to.Get(actor);
                if (unanswered is not null && unanswered.Contains(actor))
                {
                    try
                    {
                        await participant.AbortUnanswered(tid).WaitAsync(voteTimeout, clock);
                        return;
                    }
                    catch (Exception e) when (e is not TimeoutException)
                    {
                        // A silo of a build without it: the plain Abort at least frees this actor.
                    }
                }

                await participant.Abort(tid).WaitAsync(voteTimeout, clock);
            }
            catch (Exception e)
            {
                // Presumed abort: a participant that misses this (or gets it late) finds no
                // CoordCommit and aborts.
                LogMessages.ActAborted(diagnostics, tid, AbortReason.Failure, $"abort not delivered to {actor}: {e.Message}");
            }
        }));
    }

    // Prepare on every one of them; if any votes no, abort them all and throw naming it.
    private async Task<(Vote Vote, Exception? Cause)[]> PhaseOne(long tid, IReadOnlyList<ActorId> participants, HybridDecision decision, bool earlyLockRelease, Recipients to)
    {
        if (participants.Count == 0)
        {
            return [];
        }

        var votes = await Task.WhenAll(participants.Select(actor => PrepareSafely(actor, tid, decision, earlyLockRelease, to)));
        var refusal = Array.FindIndex(votes, v => v.Vote == Vote.No);
        if (refusal >= 0)
        {
            await AbortAll(tid, participants, to);
            var (_, cause) = votes[refusal];
            throw Failed(tid, $"participant {participants[refusal]} voted no{(cause is null ? " (it had already aborted)" : $": {cause.Message}")}", cause);
        }

        return votes;
    }

    private async Task<(Vote Vote, Exception? Cause)> PrepareSafely(ActorId actor, long tid, HybridDecision decision, bool earlyLockRelease, Recipients to)
    {
        try
        {
            return (await to.Get(actor).Prepare(tid, decision, earlyLockRelease).WaitAsync(voteTimeout, clock), null);
        }
        catch (Exception e)
        {
            return (Vote.No, e);
        }
    }

    // A Commit is delivered until applied: a participant that votes yes waits for it. The root
    // waits for the first try only as long as for a vote (the participant's activation may be
    // going, and answer only once its running calls end, one of which may wait for this root); the
    // later tries go on without it. False if the first did not get through: the root then
    // remembers the outcome, for the participant to ask once its record is past the deadline.
    private async Task<bool> CommitSafely(ActorId actor, long tid, HybridDecision decision, Recipients to)
    {
        try
        {
            await to.Get(actor).Commit(tid, decision).WaitAsync(voteTimeout, clock);
            return true;
        }
        catch (Exception)
        {
            _ = DeliverCommit(actor, tid, decision, to);
            return false;
        }
    }

    private async Task DeliverCommit(ActorId actor, long tid, HybridDecision decision, Recipients to)
    {
        for (var attempt = 2; ; attempt++)
        {
            await Task.Delay(CommitRetry * attempt, clock);
            try
            {
                await to.Get(actor).Commit(tid, decision);
                return;
            }
            catch (Exception e) when (attempt < CommitAttempts)
            {
                LogMessages.DeliveryFailed(diagnostics, e, actor);
            }
            catch (Exception e)
            {
                LogMessages.CommitDeliveryFailed(diagnostics, e, tid, actor);
                return;
            }
        }
    }

    private static TransactionAbortedException Failed(long tid, string detail, Exception? cause) =>
        new(AbortReason.Failure, detail, cause) { Tid = tid };

    /// <summary>Who receives the ACT's messages: the root in place, every other participant as a grain call.</summary>
    private readonly record struct Recipients(ActorResolver Actors, ActorId RootId, ISnapperParticipant Root)
    {
        public ISnapperParticipant Get(ActorId actor) => actor == RootId ? Root : Actors.Participant(actor);
    }
}

using System.Collections.Immutable;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;
using Snapper.Grains;
using Snapper.Diagnostics;
using Snapper.Hosting;
using Snapper.Logging;
using Snapper.Pact;

namespace Snapper.Coordination;

/// <summary>
/// The coordinator ring and what its members share (Snapper §4.2): the token, the batches emitted
/// and not yet resolved, commit in bid order, and the abort cascade. In one silo the shared parts
/// sit behind one lock; the paper's coordinators exchange them through the token and messages.
/// </summary>
/// <remarks>
/// <para>An idle ring parks its token: after a full lap that found nothing to batch, the coordinator
/// holding it keeps it, and the next NewPact wakes it. An idle silo therefore spends no CPU on the
/// ring.</para>
/// <para>Abort cascade (§4.2.4): emission pauses; every batch not yet committing is aborted (the
/// paper aborts all uncommitted batches rather than tracking dependencies); batches already
/// committing finish; every participant of an aborted batch returns to its committed state; the
/// token forgets its prevBids, since no batch is left in any schedule; emission resumes.</para>
/// </remarks>
internal sealed class PactRing
{
    private readonly object gate = new();
    private readonly BatchToken token = new();
    private readonly SortedDictionary<long, EmittedBatch> unresolved = new();
    private readonly Dictionary<long, Exception> failures = new();
    private readonly Dictionary<long, Exception> batchFailures = new();

    // Bids aborted by a cascade, with when: an ACT that read a batch's state asks whether it
    // committed (Outcome). Kept for twice the transaction timeout, longer than any ACT can ask.
    private readonly Dictionary<long, DateTimeOffset> aborted = new();
    private readonly PactCoordinator[] coordinators;
    private readonly ActorResolver actors;
    private readonly TidAuthority tids;
    private readonly TimeProvider clock;
    private readonly SnapperOptions options;
    private readonly ILogger diagnostics;
    private readonly SnapperMetrics metrics;
    private int parkedAt; // the coordinator holding the parked token, or -1 while it circulates
    private bool cascading;
    private bool forgetPrevBids;
    private bool sweeping;
    private long highestCommitted;

    public PactRing(IOptions<SnapperOptions> options, ActorResolver actors, LoggerPool loggers, TidAuthority tids, SnapperMetrics metrics, TimeProvider clock, ILoggerFactory loggerFactory)
    {
        this.metrics = metrics;
        this.options = options.Value;
        this.actors = actors;
        this.tids = tids;
        this.clock = clock;
        diagnostics = loggerFactory.CreateLogger("Snapper.Pact");
        coordinators = Enumerable.Range(0, this.options.CoordinatorCount)
            .Select(i => new PactCoordinator(i, this, loggers.For(ActorId.FromParts("snapper.coordinator", i.ToString(System.Globalization.CultureInfo.InvariantCulture)))))
            .ToArray();
    }

    /// <summary>Batches emitted and not yet committed or aborted.</summary>
    public int UnresolvedCount
    {
        get
        {
            lock (gate)
            {
                return unresolved.Count;
            }
        }
    }

    /// <summary>True while the token is parked (the ring is idle).</summary>
    public bool IsParked
    {
        get
        {
            lock (gate)
            {
                return parkedAt >= 0;
            }
        }
    }

    /// <summary>True while an abort cascade runs (emission is paused).</summary>
    public bool IsCascading
    {
        get
        {
            lock (gate)
            {
                return cascading;
            }
        }
    }

    /// <summary>The highest committed bid; every batch up to it has committed or aborted.</summary>
    public long CommittedThrough
    {
        get
        {
            lock (gate)
            {
                return highestCommitted;
            }
        }
    }

    /// <summary>
    /// Completes with true once emitted batch <paramref name="bid"/> has committed, false if it was
    /// aborted. Asked by an ACT's root about the batches whose state the ACT read (Snapper §4.4.4).
    /// </summary>
    public Task<bool> Outcome(long bid)
    {
        lock (gate)
        {
            if (aborted.ContainsKey(bid))
            {
                return Decided.Aborted;
            }

            if (!unresolved.TryGetValue(bid, out var batch))
            {
                return Decided.Committed; // emitted, no longer unresolved and not aborted
            }

            return AfterResolved(batch);
        }
    }

    /// <summary>NewPact, first actor → its coordinator: completes with the PACT's context once its batch is emitted.</summary>
    public Task<TxnContext> NewPact(ActorId root, AccessSet declared)
    {
        var pending = new PendingPact(root, declared);
        var coordinator = coordinators[Logging.StableHash.Of(root) % (ulong)coordinators.Length];
        PactCoordinator? wake;
        lock (gate)
        {
            coordinator.Buffer.Add(pending);
            wake = Unpark();
        }

        wake?.Receive();
        return pending.Placed.Task;
    }

    /// <summary>
    /// The token is at <paramref name="coordinator"/>: form a batch of its buffered PACTs (if any),
    /// update the token and pass it on, or park it after an idle lap.
    /// </summary>
    public FormedBatch? FormBatch(PactCoordinator coordinator)
    {
        FormedBatch? formed = null;
        PactCoordinator next;
        lock (gate)
        {
            if (cascading)
            {
                parkedAt = coordinator.Index; // resumed by the end of the cascade
                return null;
            }

            if (forgetPrevBids)
            {
                token.PrevBid.Clear();
                forgetPrevBids = false;
            }

            if (coordinator.Buffer.Count == 0)
            {
                token.IdleVisits++;
                if (token.IdleVisits >= coordinators.Length && coordinators.All(c => c.Buffer.Count == 0))
                {
                    parkedAt = coordinator.Index;
                    return null;
                }
            }
            else
            {
                token.IdleVisits = 0;
                formed = Form(coordinator);
            }

            next = coordinators[(coordinator.Index + 1) % coordinators.Length];
        }

        // Passed on as soon as the batch is formed, before it is emitted, executed or committed (§4.2.1).
        next.Receive();
        return formed;
    }

    /// <summary>BatchComplete, actor → coordinator, one-way: the batch completed on <paramref name="actor"/> and its state is logged.</summary>
    public void BatchComplete(long bid, ActorId actor)
    {
        EmittedBatch? completed = null;
        lock (gate)
        {
            if (unresolved.TryGetValue(bid, out var batch) && batch.Phase == BatchPhase.Emitted && batch.Pending.Remove(actor) && batch.Pending.Count == 0)
            {
                batch.Phase = BatchPhase.Completed;
                completed = batch;
            }
        }

        if (completed is not null)
        {
            _ = Commit(completed);
        }
    }

    /// <summary>
    /// A PACT of batch <paramref name="bid"/> failed (<paramref name="tid"/>, or 0 for the whole
    /// batch): abort it and every uncommitted batch.
    /// </summary>
    public void Abort(long bid, long tid, Exception cause)
    {
        lock (gate)
        {
            if (!unresolved.TryGetValue(bid, out var batch) || batch.Phase is BatchPhase.Committing or BatchPhase.Resolved)
            {
                return; // already decided (or its commit is being logged)
            }

            if (tid != 0)
            {
                failures.TryAdd(tid, cause);
            }
            else
            {
                batchFailures.TryAdd(bid, cause);
            }

            if (cascading)
            {
                return; // the cascade under way takes this batch (see Cascade) and reads the cause
            }

            cascading = true;
        }

        _ = Cascade();
    }

    /// <summary>Sends a one-way message to a participant, in its turn.</summary>
    public void Send(ActorId actor, Func<ISnapperParticipant, Task> message) => _ = Deliver(actor, message);

    private async Task Deliver(ActorId actor, Func<ISnapperParticipant, Task> message)
    {
        try
        {
            await message(actors.Participant(actor)).ConfigureAwait(false);
        }
        catch (Exception e)
        {
            // BatchMsg and BatchCommit are one-way: a lost BatchMsg stalls its batch until the
            // declaration sweep aborts it; a lost BatchCommit is covered by the next BatchCommit
            // or abort that reaches the actor, since both carry the highest committed bid.
            LogMessages.DeliveryFailed(diagnostics, e, actor);
        }
    }

    private async Task<bool> AfterResolved(EmittedBatch batch)
    {
        await batch.Resolved.Task.ConfigureAwait(false);
        lock (gate)
        {
            return !aborted.ContainsKey(batch.Bid);
        }
    }

    private FormedBatch Form(PactCoordinator coordinator)
    {
        var pacts = coordinator.Buffer.ToImmutableArray();
        coordinator.Buffer = [];
        var range = tids.AllocateRange(pacts.Length);
        metrics.BatchFormed(pacts.Length);
        var bid = range.First;
        var deadline = clock.GetUtcNow() + options.TransactionTimeout;
        var contexts = ImmutableArray.CreateBuilder<TxnContext>(pacts.Length);
        var perActor = new Dictionary<ActorId, ImmutableArray<(long, int)>.Builder>();
        for (var i = 0; i < pacts.Length; i++)
        {
            var tid = bid + i;
            contexts.Add(new TxnContext(tid, TxnMode.Pact, pacts[i].Root, deadline, bid, pacts[i].Declared));
            foreach (var (actor, calls) in pacts[i].Declared.Accesses)
            {
                if (!perActor.TryGetValue(actor, out var list))
                {
                    perActor[actor] = list = ImmutableArray.CreateBuilder<(long, int)>();
                }

                list.Add((tid, calls));
            }
        }

        var subBatches = ImmutableArray.CreateBuilder<(ActorId, SubBatch)>(perActor.Count);
        foreach (var (actor, list) in perActor)
        {
            // A predecessor at or below the highest committed bid has completed everywhere: no wait.
            var prev = token.PrevBid.TryGetValue(actor, out var p) && p > highestCommitted ? p : 0;
            token.PrevBid[actor] = bid;
            subBatches.Add((actor, new SubBatch(bid, prev, coordinator.Index, list.ToImmutable())));
        }

        if (token.PrevBid.Count > 65_536)
        {
            foreach (var stale in token.PrevBid.Where(kv => kv.Value <= highestCommitted).Select(kv => kv.Key).ToList())
            {
                token.PrevBid.Remove(stale);
            }
        }

        var batch = new EmittedBatch(bid, token.LastBid, coordinator.Index, [.. perActor.Keys], [.. contexts.Select(c => c.Tid)], clock.GetUtcNow());
        token.LastBid = bid;
        unresolved[bid] = batch;
        if (!sweeping)
        {
            sweeping = true;
            _ = Task.Run(SweepDeclarations);
        }

        return new FormedBatch(batch, pacts, contexts.MoveToImmutable(), subBatches.MoveToImmutable());
    }

    private async Task Commit(EmittedBatch batch)
    {
        Task previous;
        lock (gate)
        {
            previous = unresolved.TryGetValue(batch.PreviousBid, out var p) ? p.Resolved.Task : Task.CompletedTask;
        }

        await previous.ConfigureAwait(false); // batches commit in bid order (§4.2.4)
        lock (gate)
        {
            if (batch.Phase != BatchPhase.Completed)
            {
                return; // taken by an abort cascade
            }

            batch.Phase = BatchPhase.Committing;
        }

        var log = coordinators[batch.Coordinator].Logger;
        try
        {
            if (log is not null)
            {
                await log.Append(new BatchCommitRecord(batch.Bid)).ConfigureAwait(false);
            }
        }
        catch (Exception e)
        {
            lock (gate)
            {
                batch.Phase = BatchPhase.Completed; // undecided again: the abort below takes it
            }

            // Starts a cascade, or leaves the batch and its cause to the one under way; only then
            // is the cascade that may be waiting for this commit woken to look again.
            Abort(batch.Bid, 0, new TransactionAbortedException(AbortReason.Failure, $"coordinator {batch.Coordinator} could not log BatchCommit of batch {batch.Bid}: {e.Message}", e));
            batch.CommitSettled.TrySetResult();
            return;
        }

        lock (gate)
        {
            batch.Phase = BatchPhase.Resolved;
            unresolved.Remove(batch.Bid);
            highestCommitted = Math.Max(highestCommitted, batch.Bid);
        }

        // Queue BatchCommit on every participant before anyone can see the batch resolved: an abort
        // cascade waiting for it must reach each actor after the commit, never before.
        foreach (var actor in batch.Participants)
        {
            Send(actor, p => p.OnBatchCommit(batch.Bid));
        }

        batch.Resolved.TrySetResult();
        batch.CommitSettled.TrySetResult();
    }

    private async Task Cascade()
    {
        var aborting = new List<EmittedBatch>();
        while (true)
        {
            var committing = new List<Task>();
            lock (gate)
            {
                foreach (var batch in unresolved.Values)
                {
                    if (batch.Phase is BatchPhase.Emitted or BatchPhase.Completed)
                    {
                        batch.Phase = BatchPhase.Aborting;
                        aborting.Add(batch);
                    }
                    else if (batch.Phase == BatchPhase.Committing)
                    {
                        committing.Add(batch.CommitSettled.Task);
                    }
                }
            }

            if (committing.Count == 0)
            {
                break;
            }

            // Batches whose commit is being logged finish first. A write that fails leaves its
            // batch Completed again, so the next pass aborts it with the others.
            await Task.WhenAll(committing).ConfigureAwait(false);
        }

        long through, committedThrough;
        Dictionary<long, Exception> causes;
        lock (gate)
        {
            through = token.LastBid;
            committedThrough = highestCommitted;
            causes = new Dictionary<long, Exception>(failures);
            foreach (var batch in aborting)
            {
                if (batchFailures.TryGetValue(batch.Bid, out var cause))
                {
                    foreach (var tid in batch.Tids)
                    {
                        causes.TryAdd(tid, cause);
                    }
                }
            }
        }

        LogMessages.PactCascade(diagnostics, aborting.Count, through);
        await Task.WhenAll(aborting.SelectMany(b => b.Participants).Distinct().Select(actor =>
        {
            return actors.Participant(actor).OnAbort(through, committedThrough, causes);
        })).ConfigureAwait(false);

        PactCoordinator? wake;
        lock (gate)
        {
            var now = clock.GetUtcNow();
            var forgetBefore = now - (2 * options.TransactionTimeout);
            foreach (var old in aborted.Where(kv => kv.Value < forgetBefore).Select(kv => kv.Key).ToList())
            {
                aborted.Remove(old);
            }

            foreach (var batch in aborting)
            {
                batch.Phase = BatchPhase.Resolved;
                unresolved.Remove(batch.Bid);
                aborted[batch.Bid] = now;
            }

            failures.Clear();
            batchFailures.Clear();
            forgetPrevBids = true; // no batch is left in any schedule
            cascading = false;
            wake = Unpark();
        }

        foreach (var batch in aborting)
        {
            batch.Resolved.TrySetResult();
        }

        wake?.Receive();
    }

    /// <summary>
    /// A declared actor that is never called would stall its batch, and every later batch on its
    /// actors, forever. While batches are unresolved, check for ones older than the declaration
    /// timeout and abort them with a message naming the actor and the PACT.
    /// </summary>
    private async Task SweepDeclarations()
    {
        var period = TimeSpan.FromTicks(Math.Clamp(options.DeclarationTimeout.Ticks / 4, TimeSpan.FromMilliseconds(10).Ticks, TimeSpan.FromSeconds(1).Ticks));
        while (true)
        {
            await Task.Delay(period, clock).ConfigureAwait(false);
            EmittedBatch? overdue;
            List<ActorId> stalled = [];
            lock (gate)
            {
                if (unresolved.Count == 0)
                {
                    sweeping = false;
                    return;
                }

                var now = clock.GetUtcNow();
                overdue = cascading ? null : unresolved.Values.FirstOrDefault(b => b.Phase == BatchPhase.Emitted && now - b.EmittedAt > options.DeclarationTimeout);
                if (overdue is not null)
                {
                    stalled = [.. overdue.Pending];
                }
            }

            if (overdue is null)
            {
                continue;
            }

            foreach (var actor in stalled)
            {
                var (tid, description) = await actors.Participant(actor).DescribeWait(overdue.Bid).ConfigureAwait(false);
                if (tid != 0)
                {
                    Abort(overdue.Bid, tid, new TransactionAbortedException(
                        AbortReason.DeclarationError,
                        $"{description} within the declaration timeout of {options.DeclarationTimeout}") { Tid = tid });
                    break;
                }
            }
        }
    }

    private static class Decided
    {
        public static readonly Task<bool> Committed = Task.FromResult(true);
        public static readonly Task<bool> Aborted = Task.FromResult(false);
    }

    private PactCoordinator? Unpark()
    {
        if (parkedAt < 0 || cascading)
        {
            return null;
        }

        var holder = coordinators[parkedAt];
        parkedAt = -1;
        token.IdleVisits = 0;
        return holder;
    }
}

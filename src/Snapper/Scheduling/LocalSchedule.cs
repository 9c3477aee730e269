using System.Collections.Immutable;
using Snapper.Protocol;

namespace Snapper.Scheduling;

/// <summary>
/// An actor's local schedule (Snapper §4.2.3, §4.4.1): PACT batches in prevBid-chain order, with
/// ACTs inserted between them.
/// <list type="bullet">
/// <item>Batches are chained by prevBid: a batch whose predecessor has not been placed here waits
/// aside, even if it arrived first. Within the running batch, PACTs take turns in tid order; a
/// PACT's turn ends when it has made its declared number of calls, or, once it has aborted, as
/// soon as no call of it runs here (a turn not reached yet is skipped).</item>
/// <item>An ACT arriving here joins the tail: the <see cref="ActGroup"/> after the last placed
/// batch, unless it brings a hint (<see cref="Hybrid.ActPlacementHint"/>): then it goes before the
/// first batch not started yet whose bid is beyond its max(BeforeSet) elsewhere. A group is
/// admitted once every batch before it has <em>completed</em> here (not necessarily committed);
/// ACTs of one group run concurrently.</item>
/// <item>A batch starts once everything before it is done: the previous batch completed here
/// (speculative pipelining: it need not have committed) and every ACT before it committed or
/// aborted here.</item>
/// </list>
/// </summary>
/// <remarks>Owned by one actor; touched only inside its turns.</remarks>
internal sealed partial class LocalSchedule(ActorId actor, TimeProvider? clock = null)
{
    // A deadline further away than this is no deadline (a timer cannot wait that long anyway).
    private static readonly TimeSpan MaxWait = TimeSpan.FromDays(1);
    private readonly TimeProvider clock = clock ?? TimeProvider.System;

    // The schedule from its head on: SubBatch (running or queued, chain-contiguous) and ActGroup
    // entries. Completed batches and drained groups (with something after them) are removed, so
    // the head is the running batch, an admitted group, or the next thing to start.
    private readonly LinkedList<object> entries = new();

    // Batches that arrived but whose predecessor has not been placed here, by predecessor bid.
    private readonly Dictionary<long, SubBatch> waitingForPredecessor = new();

    // Calls that arrived before their batch started, by bid.
    private readonly Dictionary<long, List<TaskCompletionSource>> callsBeforeBatch = new();

    // PACTs that aborted or were released before their batch started here.
    private readonly SkippedTurns skipped = new();

    // Batches completed here and not yet committed or aborted, in bid order, with their PACTs: an
    // abort of one of those PACTs asks whether it wrote here.
    private readonly List<(long Bid, ScheduledPact[] Pacts)> completed = new();

    // Bid ranges taken by abort cascades: their late messages and calls are refused.
    private readonly AbortedBids aborted = new();

    private RunningBatch? current;
    private Exception? leaving; // set by Bounce: the activation is going, so no call may start to wait here
    private IPactSide? pactSide;
    private IActSide? actSide;
    private long chainTail; // bid of the last batch placed in the schedule and not aborted (0: none)

    /// <summary>The highest bid that ever completed here; a call for a batch at or below it that is not running comes too late.</summary>
    public long HighestCompletedBid { get; private set; }

    /// <summary>The batch now running here, if any.</summary>
    public SubBatch? Running => current?.Batch;

    /// <summary>True while any batch is running here or waiting to.</summary>
    public bool HasBatches => waitingForPredecessor.Count > 0 || entries.Any(e => e is SubBatch);

    /// <summary>The batches running here or waiting to (for a predecessor, or their turn).</summary>
    public IEnumerable<SubBatch> Batches => [.. entries.OfType<SubBatch>(), .. waitingForPredecessor.Values];

    /// <summary>
    /// The PACT engine: told when a batch starts and completes here, and when the turn of a PACT
    /// that aborted ends, before the next PACT's turn starts (its writes are undone then, while
    /// nobody has read them).
    /// </summary>
    public void Attach(IPactSide engine) => pactSide = engine;

    /// <summary>
    /// The ACT engine: told when a batch starts here, and when a batch is placed behind ACTs that
    /// have not finished here (those ACTs precede the batch: it is in their AfterSet).
    /// </summary>
    public void Attach(IActSide engine) => actSide = engine;

    /// <summary>BatchMsg arrived.</summary>
    public void Add(SubBatch batch)
    {
        if (aborted.Contains(batch.Bid))
        {
            return; // a cascade already took it here
        }

        // prevBid 0: the predecessor (if any) has resolved, so it has completed (or was aborted) here.
        if (batch.PrevBid == 0 || batch.PrevBid == chainTail)
        {
            Place(batch);
            Pump();
        }
        else
        {
            waitingForPredecessor[batch.PrevBid] = batch;
        }
    }

    /// <summary>
    /// An ACT reached this actor for the first time: it joins the group at the tail, or, if its
    /// max(BeforeSet) elsewhere is <paramref name="maxBeforeBid"/> (0: unknown), the group before
    /// the first batch here that has not started and whose bid is beyond that. Its calls may run
    /// once the group is <see cref="ActGroupPhase.Open"/>.
    /// </summary>
    public ActGroup JoinAct(long tid, long maxBeforeBid = 0)
    {
        ActGroup? group = null;
        if (maxBeforeBid > 0)
        {
            if (current is not null && current.Bid > maxBeforeBid && current.Untouched)
            {
                Unstart(); // nothing of it ran here yet: it can still follow the ACT
            }

            for (var node = entries.First; node is not null; node = node.Next)
            {
                if (node.Value is SubBatch batch && !ReferenceEquals(batch, current?.Batch) && batch.Bid > maxBeforeBid)
                {
                    if (node.Previous?.Value is not ActGroup before)
                    {
                        group = new ActGroup();
                        entries.AddBefore(node, group);
                    }
                    else if (before.Phase != ActGroupPhase.Open)
                    {
                        group = before;
                    }

                    // else the ACTs before that batch already run: joining them could keep it waiting
                    // for as long as ACTs keep coming, so this one goes to the tail like any other.
                    break;
                }
            }
        }

        if (group is null && entries.Last?.Value is not ActGroup)
        {
            entries.AddLast(new ActGroup());
        }

        group ??= (ActGroup)entries.Last!.Value;
        group.Members.Add(tid);
        Pump();
        return group;
    }

    // Puts the running batch back among the batches not started: calls waiting for their turn in it
    // try again and wait for it to start (its PACTs' turns start over when it does).
    private void Unstart()
    {
        var waiting = current!;
        current = null;
        waiting.Unstart();
        foreach (var (bid, tid) in waiting.Released)
        {
            skipped.Release(bid, tid); // its turn is skipped again when the batch starts again
        }
    }

    /// <summary>An ACT committed or aborted here; the batch after its group may be able to start.</summary>
    public void LeaveAct(ActGroup group, long tid)
    {
        if (group.Members.Remove(tid) && group.Members.Count == 0)
        {
            Pump();
        }
    }

    /// <summary>The bid of the last batch placed before <paramref name="group"/> (what it waits for), or 0.</summary>
    public long BatchBefore(ActGroup group)
    {
        for (var node = entries.Find(group)?.Previous; node is not null; node = node.Previous)
        {
            if (node.Value is SubBatch batch)
            {
                return batch.Bid;
            }
        }

        return 0;
    }

    /// <summary>The bid of the first batch placed after <paramref name="group"/> (its bound on the AfterSet), or 0 if none is known yet.</summary>
    public long BatchAfter(ActGroup group)
    {
        for (var node = entries.Find(group)?.Next; node is not null; node = node.Next)
        {
            if (node.Value is SubBatch batch)
            {
                return batch.Bid;
            }
        }

        return 0;
    }

    /// <summary>
    /// The activation is going and no call runs here: the schedule as it stands, batch by batch,
    /// for the next activation (<see cref="Resume"/>). ACT groups are not kept: the ACTs' records go
    /// with the activation (their roots' Prepare finds none and they abort).
    /// </summary>
    public ScheduleHandover HandOver()
    {
        ImmutableArray<(long, long, Exception)> abortedPacts = [.. skipped.Aborted, .. current?.Aborted ?? []];
        ImmutableArray<(long, long)> releasedPacts = [.. skipped.Released, .. current?.Released ?? []];
        return new ScheduleHandover(
            HighestCompletedBid,
            chainTail,
            [.. completed.Select(c => c.Bid)],
            current?.Batch,
            [.. current?.Pacts.Select(p => p.CallsFinished) ?? []],
            [.. entries.OfType<SubBatch>().Where(b => !ReferenceEquals(b, current?.Batch))],
            [.. waitingForPredecessor.Values.OrderBy(b => b.Bid)],
            aborted.Ranges,
            abortedPacts,
            releasedPacts,
            [.. current?.AwaitingRelease ?? []]);
    }

    /// <summary>
    /// This activation follows one that handed its schedule over (<see cref="HandOver"/>): the
    /// batches go on where they stopped, the running one at the turn it had reached. Called once,
    /// on a new schedule, before any message is taken; <paramref name="runningRestored"/> puts the
    /// running batch's working copy back after the batch is started and before its turns advance.
    /// </summary>
    public void Resume(ScheduleHandover handover, Action? runningRestored = null)
    {
        HighestCompletedBid = handover.HighestCompletedBid;
        chainTail = handover.ChainTail;
        foreach (var (from, through, cascade) in handover.Aborted)
        {
            aborted.Add(from, through, cascade);
        }

        foreach (var bid in handover.CompletedBids)
        {
            completed.Add((bid, [])); // who wrote is not known any more: such a PACT's abort takes its batch along
        }

        foreach (var (bid, tid, cause) in handover.AbortedPacts)
        {
            if (handover.Running?.Bid != bid)
            {
                skipped.Abort(bid, tid, cause);
            }
        }

        foreach (var (bid, tid) in handover.ReleasedPacts)
        {
            if (handover.Running?.Bid != bid)
            {
                skipped.Release(bid, tid);
            }
        }

        if (handover.Running is { } batch)
        {
            entries.AddLast(batch);
            current = new RunningBatch(batch, handover.CallsFinished, handover.AbortedPacts, handover.ReleasedPacts, handover.AwaitingRelease);
            actSide?.BatchStarted(batch);
            pactSide?.BatchStarted(batch);
        }

        // The running batch's writes so far are back before any turn may end: a batch that completed
        // now would otherwise complete without them.
        runningRestored?.Invoke();

        foreach (var placed in handover.Placed)
        {
            entries.AddLast(placed);
        }

        foreach (var waiting in handover.WaitingForPredecessor)
        {
            waitingForPredecessor[waiting.PrevBid] = waiting;
        }

        AdvanceTurns();
        Pump();
    }

    /// <summary>BatchCommit: every batch up to <paramref name="bid"/> committed; their PACTs can no longer abort.</summary>
    public void Committed(long bid)
    {
        var count = 0;
        while (count < completed.Count && completed[count].Bid <= bid)
        {
            count++;
        }

        completed.RemoveRange(0, count);
    }

    /// <summary>True if an abort cascade took batch <paramref name="bid"/> here.</summary>
    public bool IsAborted(long bid) => aborted.Contains(bid);

    /// <summary>What the PACTs of batch <paramref name="bid"/> are told if an abort cascade took it here (<see cref="Protocol.BatchOutcome.Cascade"/>); else null.</summary>
    public AbortReason? CascadeOf(long bid) => aborted.CascadeOf(bid);

    /// <summary>
    /// Abort cascade: batches <paramref name="from"/> through <paramref name="through"/> are gone
    /// from here; calls waiting for them fail, and their late messages and calls will be refused.
    /// Earlier batches stay. ACT groups stay too, now perhaps adjacent, so ACTs that waited behind an
    /// aborted batch are admitted, on the state of <paramref name="lastCompletedBid"/>, the last batch
    /// that completed here and survives. Returns true if the running batch was among them. The
    /// calls that fail are told <paramref name="cascade"/> (<see cref="Protocol.BatchOutcome.Cascade"/>).
    /// </summary>
    public bool AbortRange(long from, long through, long lastCompletedBid, AbortReason cascade = AbortReason.Cascading)
    {
        aborted.Add(from, through, cascade);

        var cascading = new TransactionAbortedException(cascade, $"its batch was aborted on actor {actor}") { Blocker = AbortBlocker.Batch(actor, from) };
        var droppedRunning = false;
        if (current is not null && IsAborted(current.Bid))
        {
            current.Abort(cascading); // its batch is gone here, and its writes with it
            current = null;
            droppedRunning = true;
        }

        foreach (var bid in callsBeforeBatch.Keys.Where(IsAborted).ToList())
        {
            foreach (var waiting in callsBeforeBatch[bid])
            {
                waiting.TrySetException(cascading);
            }

            callsBeforeBatch.Remove(bid);
        }

        foreach (var (predecessor, waiting) in waitingForPredecessor.Where(kv => IsAborted(kv.Value.Bid)).ToList())
        {
            waitingForPredecessor.Remove(predecessor);
        }

        skipped.Forget(IsAborted);

        completed.RemoveAll(c => IsAborted(c.Bid));

        var tail = lastCompletedBid;
        for (var node = entries.First; node is not null;)
        {
            var next = node.Next;
            if (node.Value is SubBatch batch)
            {
                if (IsAborted(batch.Bid))
                {
                    entries.Remove(node);
                }
                else
                {
                    tail = Math.Max(tail, batch.Bid);
                }
            }

            node = next;
        }

        if (IsAborted(chainTail))
        {
            chainTail = tail;
        }

        Pump();
        return droppedRunning;
    }

    private void Place(SubBatch batch)
    {
        for (SubBatch? next = batch; next is not null; waitingForPredecessor.Remove(next.Bid, out next))
        {
            if (entries.Last?.Value is ActGroup { Members.Count: > 0 } before)
            {
                actSide?.BatchPlacedBehind(before, next.Bid);
            }

            entries.AddLast(next);
            chainTail = next.Bid;
        }
    }

    // Starts or admits what the head of the schedule allows: drained groups with something after
    // them are dropped, every group with no batch before it is admitted, and a batch at the head starts.
    private void Pump()
    {
        for (var node = entries.First; node is not null;)
        {
            var next = node.Next;
            if (node.Value is ActGroup group)
            {
                group.Open();
                if (group.Members.Count == 0 && next is not null)
                {
                    entries.Remove(node);
                }

                node = next;
                continue;
            }

            var batch = (SubBatch)node.Value;
            if (node == entries.First && current is null)
            {
                Start(batch);
            }

            return;
        }
    }

    private void Start(SubBatch batch)
    {
        var anySkipped = skipped.Take(batch.Bid, out var aborts, out var released);
        current = new RunningBatch(batch, aborts, released);
        actSide?.BatchStarted(batch);
        pactSide?.BatchStarted(batch);
        if (callsBeforeBatch.Remove(batch.Bid, out var early))
        {
            foreach (var call in early)
            {
                call.TrySetResult();
            }
        }

        if (anySkipped)
        {
            AdvanceTurns(); // past the turns of PACTs that aborted or were released before the batch started here
        }
    }

    // Ends the turns that are over; once the running batch's last turn has ended, it has completed here.
    private void AdvanceTurns()
    {
        if (current is null || !current.AdvanceTurns(pactSide))
        {
            return;
        }

        var done = current;
        completed.Add((done.Bid, done.Pacts));
        current = null;
        entries.RemoveFirst(); // the running batch is always the head
        HighestCompletedBid = Math.Max(HighestCompletedBid, done.Bid);
        pactSide?.BatchCompleted(done.Batch);
        Pump();
    }
}

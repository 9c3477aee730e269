using System.Collections.Immutable;

namespace Snapper.Pact;

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
internal sealed class LocalSchedule(ActorId actor, TimeProvider? clock = null)
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

    // PACTs that aborted before their batch started here, by bid: their turns are skipped.
    private readonly Dictionary<long, Dictionary<long, Exception>> abortedBeforeStart = new();

    // Batches completed here and not yet committed or aborted, in bid order, with their PACTs: an
    // abort of one of those PACTs asks whether it wrote here.
    private readonly List<(long Bid, ScheduledPact[] Pacts)> completed = new();

    // Bid ranges taken by abort cascades, disjoint and in bid order: their late messages and calls
    // are refused. Every batch of one cascade reports a range ending at the cascade's end, so
    // they merge into one range per cascade.
    private readonly List<(long From, long Through)> aborted = new();

    private SubBatch? running;
    private Exception? leaving; // set by Bounce: the activation is going, so no call may start to wait here
    private ScheduledPact[] pacts = [];
    private int turn;
    private long chainTail; // bid of the last batch placed in the schedule and not aborted (0: none)

    /// <summary>The highest bid that ever completed here; a call for a batch at or below it that is not running comes too late.</summary>
    public long HighestCompletedBid { get; private set; }

    /// <summary>The batch now running here, if any.</summary>
    public SubBatch? Running => running;

    /// <summary>True while any batch is running here or waiting to.</summary>
    public bool HasBatches => waitingForPredecessor.Count > 0 || entries.Any(e => e is SubBatch);

    /// <summary>The batches running here or waiting to (for a predecessor, or their turn).</summary>
    public IEnumerable<SubBatch> Batches => [.. entries.OfType<SubBatch>(), .. waitingForPredecessor.Values];

    /// <summary>Raised (in the actor's turn) when a batch has completed on this actor.</summary>
    public event Action<SubBatch>? Completed;

    /// <summary>Raised (in the actor's turn) when a batch starts running on this actor.</summary>
    public event Action<SubBatch>? Started;

    /// <summary>
    /// Raised (in the actor's turn) when the turn of a PACT that aborted ends here, before the next
    /// PACT's turn starts: its writes must be undone now, while nobody has read them.
    /// </summary>
    public event Action<ScheduledPact>? AbortedTurnEnded;

    /// <summary>
    /// Raised (in the actor's turn) when a batch is placed behind ACTs that have not finished here:
    /// those ACTs precede the batch (it is in their AfterSet) and hold it up.
    /// </summary>
    public event Action<ActGroup, long>? BatchPlacedBehind;

    /// <summary>BatchMsg arrived.</summary>
    public void Add(SubBatch batch)
    {
        if (IsAborted(batch.Bid))
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
            if (running is not null && running.Bid > maxBeforeBid && Untouched())
            {
                Unstart(); // nothing of it ran here yet: it can still follow the ACT
            }

            for (var node = entries.First; node is not null; node = node.Next)
            {
                if (node.Value is SubBatch batch && !ReferenceEquals(batch, running) && batch.Bid > maxBeforeBid)
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

    // The running batch has let no call in and skipped no PACT: it has done nothing here yet.
    private bool Untouched()
    {
        foreach (var pact in pacts)
        {
            if (pact.CallsStarted > 0 || pact.AbortedBy is not null)
            {
                return false;
            }
        }

        return true;
    }

    // Puts the running batch back among the batches not started: calls waiting for their turn in it
    // try again and wait for it to start (its PACTs' turns start over when it does).
    private void Unstart()
    {
        var waiting = pacts;
        running = null;
        pacts = [];
        turn = 0;
        foreach (var pact in waiting)
        {
            pact.Turn?.TrySetResult();
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
    /// Waits until it is <paramref name="ctx"/>'s turn, then counts the call in. Throws
    /// <see cref="TransactionAbortedException"/> for a call beyond the declaration, into an aborted
    /// batch, or of a PACT that aborted here (with that PACT's abort).
    /// </summary>
    public ValueTask Enter(TxnContext ctx)
    {
        ThrowIfAborted(ctx);
        if (running is not null && running.Bid == ctx.Bid)
        {
            var pact = Find(ctx.Tid);
            if (pact.AbortedBy is not null)
            {
                throw pact.Refusal();
            }

            if (pact.CallsStarted >= pact.DeclaredCalls)
            {
                throw new TransactionAbortedException(
                    AbortReason.DeclarationError,
                    $"PACT {ctx.Tid} declared {pact.DeclaredCalls} call(s) on actor {actor} but made more")
                { Tid = ctx.Tid };
            }

            if (turn < pacts.Length && pacts[turn] == pact)
            {
                pact.CallsStarted++;
                return ValueTask.CompletedTask;
            }

            ThrowIfLeaving();
            pact.Turn ??= new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
            return WaitThenEnter(pact.Turn.Task, ctx);
        }

        // Its PACT aborted here before this call came (a write it read was taken back, say, which
        // ended its turn and perhaps its batch here): the call gets that abort, which the caller may
        // retry, not the declaration error that a call after the batch completed would be.
        if (AbortedHere(ctx.Bid, ctx.Tid) is { } abort)
        {
            throw ScheduledPact.Refuse(ctx.Tid, abort);
        }

        if (ctx.Bid <= HighestCompletedBid)
        {
            throw new TransactionAbortedException(
                AbortReason.DeclarationError,
                $"PACT {ctx.Tid} declared {ctx.Declared?.CallsOn(actor) ?? 0} call(s) on actor {actor} but made more: its batch {ctx.Bid} had already completed there (or its context was kept past the transaction)")
            { Tid = ctx.Tid };
        }

        // Its batch has not started here yet: wait for it to arrive and start.
        ThrowIfLeaving();
        if (!callsBeforeBatch.TryGetValue(ctx.Bid, out var early))
        {
            callsBeforeBatch[ctx.Bid] = early = [];
        }

        var started = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        early.Add(started);
        return WaitForBatchThenEnter(started, ctx);
    }

    /// <summary>A call of <paramref name="ctx"/>'s PACT returned (or threw).</summary>
    public void Exit(TxnContext ctx)
    {
        if (running is null || running.Bid != ctx.Bid)
        {
            return; // its batch was aborted meanwhile
        }

        var pact = Find(ctx.Tid);
        pact.CallsFinished++;
        AdvanceTurns();
    }

    /// <summary>
    /// What <see cref="Grains.ISnapperParticipant.DescribeWait"/> names instead of a tid when batch
    /// bid waits here for what is ahead of it (ACTs not committed, an earlier batch still running),
    /// not for a call of one of its PACTs: it could not have run meanwhile.
    /// </summary>
    public const long HeldUp = -1;

    /// <summary>
    /// What <see cref="Grains.ISnapperParticipant.DescribeWait"/> names instead of a tid when batch
    /// bid never arrived here (its BatchMsg was lost): nothing here waits for it.
    /// </summary>
    public const long NotArrived = -3;

    /// <summary>True if batch <paramref name="bid"/> is not here and never was: not running, placed, waiting, completed or aborted.</summary>
    public bool NeverArrived(long bid) =>
        bid > HighestCompletedBid && running?.Bid != bid && !IsAborted(bid)
        && !waitingForPredecessor.Values.Any(b => b.Bid == bid) && !entries.Any(e => e is SubBatch b && b.Bid == bid);

    /// <summary>Batch <paramref name="bid"/> is placed here but waits for an earlier batch still running, or for ACTs ahead of it.</summary>
    public bool IsHeldUp(long bid)
    {
        if (running is not null)
        {
            return running.Bid < bid;
        }

        var actsAhead = 0;
        foreach (var entry in entries)
        {
            if (entry is SubBatch batch)
            {
                return batch.Bid == bid && actsAhead > 0;
            }

            actsAhead += ((ActGroup)entry).Members.Count;
        }

        return false;
    }

    /// <summary>Which PACT the running batch waits for here, for a declaration-error message.</summary>
    public string DescribeWait(long bid)
    {
        if (running is null || running.Bid != bid)
        {
            if (running is not null)
            {
                return $"actor {actor} is still running batch {running.Bid}";
            }

            var actsAhead = entries.TakeWhile(e => e is not SubBatch { } b || b.Bid != bid).OfType<ActGroup>().Sum(g => g.Members.Count);
            return actsAhead > 0
                ? $"actor {actor} has not started batch {bid}: {actsAhead} ACT(s) ahead of it have not committed"
                : $"actor {actor} has not started batch {bid}: its previous batch on this actor never arrived or completed";
        }

        var pact = pacts[Math.Min(turn, pacts.Length - 1)];
        return $"PACT {pact.Tid} declared {pact.DeclaredCalls} call(s) on actor {actor} but made {pact.CallsStarted}";
    }

    /// <summary>The tid of the PACT whose turn it is in batch <paramref name="bid"/>, or 0.</summary>
    public long CurrentPact(long bid) => CurrentTurn(bid)?.Tid ?? 0;

    /// <summary>The PACT whose turn it is in batch <paramref name="bid"/>, if that batch runs here.</summary>
    public ScheduledPact? CurrentTurn(long bid) => running is not null && running.Bid == bid && turn < pacts.Length ? pacts[turn] : null;

    /// <summary>
    /// A call of <paramref name="ctx"/>'s PACT failed here (or a call it made failed), in its turn:
    /// the PACT has aborted, so its turn ends once no call of it runs here any more.
    /// </summary>
    public void AbortInTurn(TxnContext ctx, Exception cause)
    {
        if (running is not null && running.Bid == ctx.Bid && IndexOf(ctx.Tid) is >= 0 and var index)
        {
            pacts[index].AbortedBy ??= cause;
        }
    }

    /// <summary>
    /// PACT <paramref name="tid"/> of batch <paramref name="bid"/> aborted (somewhere): a turn not
    /// reached yet is skipped and its waiting calls fail, a turn under way ends once no call of it
    /// runs, and its later calls are refused. Says where it stood (<paramref name="pact"/>: its
    /// place here, if it has one that may hold writes).
    /// </summary>
    public PactStanding AbortPact(long bid, long tid, Exception cause, out ScheduledPact? pact)
    {
        pact = null;
        if (IsAborted(bid))
        {
            return PactStanding.Gone;
        }

        if (running is not null && running.Bid == bid)
        {
            var index = IndexOf(tid);
            if (index < 0)
            {
                return PactStanding.Gone;
            }

            pact = pacts[index];
            pact.AbortedBy ??= cause;
            if (index < turn)
            {
                return PactStanding.TurnEnded;
            }

            if (index > turn)
            {
                pact.Turn?.TrySetException(pact.Refusal());
                return PactStanding.Gone;
            }

            if (pact.HasCallsRunning)
            {
                pact.TurnEnded ??= new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
                return PactStanding.Running;
            }

            AdvanceTurns(); // its turn ends now (AbortedTurnEnded undoes its writes)
            return PactStanding.Gone;
        }

        foreach (var (completedBid, completedPacts) in completed)
        {
            if (completedBid == bid)
            {
                pact = Array.Find(completedPacts, p => p.Tid == tid);
                return pact is null ? PactStanding.Gone : PactStanding.BatchCompleted;
            }
        }

        if (bid <= HighestCompletedBid)
        {
            return PactStanding.Gone; // batches run in bid order: it resolved here long ago
        }

        // Its batch has not started here: skip its turn when it does.
        if (!abortedBeforeStart.TryGetValue(bid, out var skipped))
        {
            abortedBeforeStart[bid] = skipped = new();
        }

        skipped.TryAdd(tid, cause);
        return PactStanding.Gone;
    }

    /// <summary>
    /// The activation is going and no call runs here: the schedule as it stands, batch by batch,
    /// for the next activation (<see cref="Resume"/>). ACT groups are not kept: the ACTs' records go
    /// with the activation (their roots' Prepare finds none and they abort).
    /// </summary>
    public ScheduleHandover HandOver()
    {
        var abortedPacts = ImmutableArray.CreateBuilder<(long, long, Exception)>();
        foreach (var (bid, skipped) in abortedBeforeStart)
        {
            foreach (var (tid, cause) in skipped)
            {
                abortedPacts.Add((bid, tid, cause));
            }
        }

        foreach (var pact in pacts)
        {
            if (pact.AbortedBy is { } cause)
            {
                abortedPacts.Add((running!.Bid, pact.Tid, cause));
            }
        }

        return new ScheduleHandover(
            HighestCompletedBid,
            chainTail,
            [.. completed.Select(c => c.Bid)],
            running,
            [.. pacts.Select(p => p.CallsFinished)],
            [.. entries.OfType<SubBatch>().Where(b => !ReferenceEquals(b, running))],
            [.. waitingForPredecessor.Values.OrderBy(b => b.Bid)],
            [.. aborted],
            abortedPacts.ToImmutable());
    }

    /// <summary>
    /// This activation follows one that handed its schedule over (<see cref="HandOver"/>): the
    /// batches go on where they stopped, the running one at the turn it had reached. Called once,
    /// on a new schedule, before any message is taken.
    /// </summary>
    public void Resume(ScheduleHandover handover)
    {
        HighestCompletedBid = handover.HighestCompletedBid;
        chainTail = handover.ChainTail;
        aborted.AddRange(handover.Aborted);
        foreach (var bid in handover.CompletedBids)
        {
            completed.Add((bid, [])); // who wrote is not known any more: such a PACT's abort takes its batch along
        }

        foreach (var (bid, tid, cause) in handover.AbortedPacts)
        {
            if (handover.Running?.Bid != bid)
            {
                if (!abortedBeforeStart.TryGetValue(bid, out var skipped))
                {
                    abortedBeforeStart[bid] = skipped = new();
                }

                skipped.TryAdd(tid, cause);
            }
        }

        if (handover.Running is { } batch)
        {
            entries.AddLast(batch);
            running = batch;
            pacts = new ScheduledPact[batch.Pacts.Length];
            for (var i = 0; i < pacts.Length; i++)
            {
                var made = handover.CallsFinished[i];
                pacts[i] = new ScheduledPact(batch.Pacts[i].Tid, batch.Pacts[i].Calls) { CallsStarted = made, CallsFinished = made };
                pacts[i].AbortedBy = handover.AbortedPacts.FirstOrDefault(a => a.Bid == batch.Bid && a.Tid == batch.Pacts[i].Tid).Cause;
            }

            turn = 0;
            while (turn < pacts.Length && pacts[turn].TurnOver)
            {
                turn++;
            }

            Started?.Invoke(batch);
        }

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

    /// <summary>
    /// The activation is going: every call waiting here for its turn or for its batch fails with
    /// <paramref name="moved"/> before it is counted in, so its caller sends it again (to the next
    /// activation, which resumes this schedule) instead of waiting here for calls the going
    /// activation can no longer take.
    /// </summary>
    public void Bounce(Exception moved)
    {
        // Calls released from a wait before this, or let in by Orleans before it began to
        // deactivate, may still reach Enter: they must not start to wait either.
        leaving = moved;
        for (var i = turn + 1; i < pacts.Length; i++)
        {
            if (pacts[i].Turn is { } waiting)
            {
                pacts[i].Turn = null;
                waiting.TrySetException(moved);
            }
        }

        foreach (var early in callsBeforeBatch.Values)
        {
            foreach (var call in early)
            {
                call.TrySetException(moved);
            }
        }

        callsBeforeBatch.Clear();
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
    public bool IsAborted(long bid)
    {
        foreach (var (from, through) in aborted)
        {
            if (bid >= from && bid <= through)
            {
                return true;
            }
        }

        return false;
    }

    /// <summary>
    /// Abort cascade: batches <paramref name="from"/> through <paramref name="through"/> are gone
    /// from here; calls waiting for them fail, and their late messages and calls will be refused.
    /// Earlier batches stay. ACT groups stay too, now perhaps adjacent, so ACTs that waited behind an
    /// aborted batch are admitted, on the state of <paramref name="lastCompletedBid"/>, the last batch
    /// that completed here and survives. Returns true if the running batch was among them.
    /// </summary>
    public bool AbortRange(long from, long through, long lastCompletedBid)
    {
        RememberAborted(from, through);

        var cascading = new TransactionAbortedException(AbortReason.Cascading, $"its batch was aborted on actor {actor}");
        var droppedRunning = false;
        if (running is not null && IsAborted(running.Bid))
        {
            foreach (var pact in pacts)
            {
                pact.Turn?.TrySetException(cascading);
                pact.TurnEnded?.TrySetResult(); // its batch is gone here, and its writes with it
            }

            running = null;
            pacts = [];
            turn = 0;
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

        foreach (var bid in abortedBeforeStart.Keys.Where(IsAborted).ToList())
        {
            abortedBeforeStart.Remove(bid);
        }

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

    private void RememberAborted(long from, long through)
    {
        var at = 0;
        while (at < aborted.Count && aborted[at].Through < from - 1)
        {
            at++;
        }

        // Merge every range that overlaps or touches [from, through].
        while (at < aborted.Count && aborted[at].From <= through + 1)
        {
            from = Math.Min(from, aborted[at].From);
            through = Math.Max(through, aborted[at].Through);
            aborted.RemoveAt(at);
        }

        aborted.Insert(at, (from, through));
        if (aborted.Count > 64)
        {
            aborted.RemoveAt(0); // cascades are sequential: the oldest has no stragglers left
        }
    }

    private void Place(SubBatch batch)
    {
        for (SubBatch? next = batch; next is not null; waitingForPredecessor.Remove(next.Bid, out next))
        {
            if (entries.Last?.Value is ActGroup { Members.Count: > 0 } before)
            {
                BatchPlacedBehind?.Invoke(before, next.Bid);
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
            if (node == entries.First && running is null)
            {
                Start(batch);
            }

            return;
        }
    }

    private async ValueTask WaitThenEnter(Task ready, TxnContext ctx)
    {
        await ready;
        await Enter(ctx);
    }

    // A call that came before its batch: the BatchMsg is on its way, unless the batch was resolved
    // and forgotten here (aborted long ago), so the wait ends at the transaction's deadline.
    private async ValueTask WaitForBatchThenEnter(TaskCompletionSource started, TxnContext ctx)
    {
        var left = ctx.Deadline - clock.GetUtcNow();
        if (left < MaxWait)
        {
            try
            {
                await started.Task.WaitAsync(left > TimeSpan.Zero ? left : TimeSpan.Zero, clock);
            }
            catch (TimeoutException)
            {
                if (callsBeforeBatch.TryGetValue(ctx.Bid, out var waiting) && waiting.Remove(started) && waiting.Count == 0)
                {
                    callsBeforeBatch.Remove(ctx.Bid);
                }

                throw new TransactionAbortedException(AbortReason.Timeout, $"its batch {ctx.Bid} never reached actor {actor} before the transaction's deadline") { Tid = ctx.Tid };
            }
        }

        await started.Task;
        await Enter(ctx);
    }

    private void Start(SubBatch batch)
    {
        running = batch;
        pacts = new ScheduledPact[batch.Pacts.Length];
        for (var i = 0; i < pacts.Length; i++)
        {
            pacts[i] = new ScheduledPact(batch.Pacts[i].Tid, batch.Pacts[i].Calls);
        }

        turn = 0;
        var skipped = abortedBeforeStart.Remove(batch.Bid, out var aborts);
        if (skipped)
        {
            foreach (var pact in pacts)
            {
                pact.AbortedBy = aborts!.GetValueOrDefault(pact.Tid);
            }
        }

        Started?.Invoke(batch);
        if (callsBeforeBatch.Remove(batch.Bid, out var early))
        {
            foreach (var call in early)
            {
                call.TrySetResult();
            }
        }

        if (skipped)
        {
            AdvanceTurns(); // past the turns of PACTs that aborted before the batch started here
        }
    }

    private void AdvanceTurns()
    {
        while (turn < pacts.Length && pacts[turn].TurnOver)
        {
            var ended = pacts[turn];
            if (ended.AbortedBy is not null)
            {
                AbortedTurnEnded?.Invoke(ended);
                ended.TurnEnded?.TrySetResult();
            }

            turn++;
            if (turn < pacts.Length)
            {
                pacts[turn].Turn?.TrySetResult();
            }
        }

        if (turn < pacts.Length || running is null)
        {
            return;
        }

        var done = running;
        completed.Add((done.Bid, pacts));
        running = null;
        pacts = [];
        entries.RemoveFirst(); // the running batch is always the head
        HighestCompletedBid = Math.Max(HighestCompletedBid, done.Bid);
        Completed?.Invoke(done);
        Pump();
    }

    private int IndexOf(long tid)
    {
        for (var i = 0; i < pacts.Length; i++)
        {
            if (pacts[i].Tid == tid)
            {
                return i;
            }
        }

        return -1;
    }

    // Why PACT tid of batch bid, which is not running here, aborted here, if it did: a completed
    // batch keeps its PACTs until it commits, a batch not started yet the aborts of the turns it
    // will skip.
    private Exception? AbortedHere(long bid, long tid)
    {
        foreach (var (completedBid, completedPacts) in completed)
        {
            if (completedBid == bid)
            {
                return Array.Find(completedPacts, p => p.Tid == tid)?.AbortedBy;
            }
        }

        return abortedBeforeStart.TryGetValue(bid, out var skipped) ? skipped.GetValueOrDefault(tid) : null;
    }

    private ScheduledPact Find(long tid)
    {
        foreach (var pact in pacts)
        {
            if (pact.Tid == tid)
            {
                return pact;
            }
        }

        throw new TransactionAbortedException(AbortReason.DeclarationError, $"PACT {tid} called actor {actor}, which its declaration does not name") { Tid = tid };
    }

    // A call that would wait here while the activation is going would keep it from going, and
    // with it the messages that end the wait: its caller sends it to the next activation instead.
    private void ThrowIfLeaving()
    {
        if (leaving is not null)
        {
            throw leaving;
        }
    }

    private void ThrowIfAborted(TxnContext ctx)
    {
        if (IsAborted(ctx.Bid))
        {
            throw new TransactionAbortedException(AbortReason.Cascading, $"its batch {ctx.Bid} was aborted") { Tid = ctx.Tid };
        }
    }
}

namespace Snapper.Pact;

/// <summary>
/// An actor's local schedule of PACT batches (Snapper §4.2.3). Batches are chained by prevBid:
/// a batch whose predecessor has not completed here waits, even if it arrived first. Within the
/// running batch, PACTs take turns in tid order; a PACT's turn ends when it has made its declared
/// number of calls. When every PACT of the batch is done, the batch has completed on this actor and
/// the next one may start at once, before the coordinator commits (speculative pipelining).
/// </summary>
/// <remarks>Owned by one actor; touched only inside its turns.</remarks>
internal sealed class LocalSchedule(ActorId actor)
{
    // Batches that arrived but whose predecessor has not completed here, by predecessor bid.
    private readonly Dictionary<long, SubBatch> waitingForPredecessor = new();

    // Calls that arrived before their batch's BatchMsg, by bid.
    private readonly Dictionary<long, List<TaskCompletionSource>> callsBeforeBatch = new();

    private SubBatch? running;
    private ScheduledPact[] pacts = [];
    private int turn;

    /// <summary>The last batch that completed here (0: none, or the chain was reset by an abort).</summary>
    public long CompletedBid { get; private set; }

    /// <summary>The highest bid that ever completed here; a call for a batch at or below it that is not running comes too late.</summary>
    public long HighestCompletedBid { get; private set; }

    /// <summary>Batches with a bid up to this one were aborted: their messages and calls are refused.</summary>
    public long AbortedThrough { get; private set; }

    /// <summary>The batch now running here, if any.</summary>
    public SubBatch? Running => running;

    /// <summary>True while any batch is running here or waiting to.</summary>
    public bool IsBusy => running is not null || waitingForPredecessor.Count > 0;

    /// <summary>Raised (in the actor's turn) when a batch has completed on this actor.</summary>
    public event Action<SubBatch>? Completed;

    /// <summary>Raised (in the actor's turn) when a batch starts running on this actor.</summary>
    public event Action<SubBatch>? Started;

    /// <summary>BatchMsg arrived.</summary>
    public void Add(SubBatch batch)
    {
        if (batch.Bid <= AbortedThrough)
        {
            return; // emitted before an abort cascade that already removed it
        }

        if (running is null && (batch.PrevBid == 0 || batch.PrevBid == CompletedBid))
        {
            Start(batch);
        }
        else
        {
            waitingForPredecessor[batch.PrevBid] = batch;
        }
    }

    /// <summary>
    /// Waits until it is <paramref name="ctx"/>'s turn, then counts the call in. Throws
    /// <see cref="TransactionAbortedException"/> for a call beyond the declaration or into an aborted batch.
    /// </summary>
    public ValueTask Enter(TxnContext ctx)
    {
        ThrowIfAborted(ctx);
        if (running is not null && running.Bid == ctx.Bid)
        {
            var pact = Find(ctx.Tid);
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

            pact.Turn ??= new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
            return WaitThenEnter(pact.Turn.Task, ctx);
        }

        if (ctx.Bid <= HighestCompletedBid)
        {
            throw new TransactionAbortedException(
                AbortReason.DeclarationError,
                $"PACT {ctx.Tid} declared {ctx.Declared?.CallsOn(actor) ?? 0} call(s) on actor {actor} but made more: its batch {ctx.Bid} had already completed there (or its context was kept past the transaction)")
            { Tid = ctx.Tid };
        }

        // Its batch has not started here yet: wait for it to arrive and start.
        if (!callsBeforeBatch.TryGetValue(ctx.Bid, out var early))
        {
            callsBeforeBatch[ctx.Bid] = early = [];
        }

        var started = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        early.Add(started);
        return WaitThenEnter(started.Task, ctx);
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

    /// <summary>Which PACT the running batch waits for here, for a declaration-error message.</summary>
    public string DescribeWait(long bid)
    {
        if (running is null || running.Bid != bid)
        {
            return running is null
                ? $"actor {actor} has not started batch {bid}: its previous batch on this actor never arrived or completed"
                : $"actor {actor} is still running batch {running.Bid}";
        }

        var pact = pacts[Math.Min(turn, pacts.Length - 1)];
        return $"PACT {pact.Tid} declared {pact.DeclaredCalls} call(s) on actor {actor} but made {pact.CallsStarted}";
    }

    /// <summary>The tid of the PACT whose turn it is in batch <paramref name="bid"/>, or 0.</summary>
    public long CurrentPact(long bid) => running is not null && running.Bid == bid && turn < pacts.Length ? pacts[turn].Tid : 0;

    /// <summary>
    /// Abort cascade: forget every batch up to <paramref name="abortedThrough"/>; calls waiting for
    /// them fail. The chain restarts empty: new batches carry prevBid 0 until they chain again.
    /// </summary>
    public void AbortThrough(long abortedThrough)
    {
        AbortedThrough = Math.Max(AbortedThrough, abortedThrough);
        var cascading = new TransactionAbortedException(AbortReason.Cascading, $"its batch was aborted on actor {actor}");
        if (running is not null)
        {
            foreach (var pact in pacts)
            {
                pact.Turn?.TrySetException(cascading);
            }
        }

        foreach (var waiting in callsBeforeBatch.Values.SelectMany(w => w))
        {
            waiting.TrySetException(cascading);
        }

        running = null;
        pacts = [];
        turn = 0;
        CompletedBid = 0;
        callsBeforeBatch.Clear();

        // Emission was paused for the cascade, so every batch still waiting here is an aborted one.
        waitingForPredecessor.Clear();
    }

    private async ValueTask WaitThenEnter(Task ready, TxnContext ctx)
    {
        await ready;
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
        Started?.Invoke(batch);
        if (callsBeforeBatch.Remove(batch.Bid, out var early))
        {
            foreach (var call in early)
            {
                call.TrySetResult();
            }
        }
    }

    private void AdvanceTurns()
    {
        while (turn < pacts.Length && pacts[turn].CallsFinished >= pacts[turn].DeclaredCalls)
        {
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
        running = null;
        pacts = [];
        CompletedBid = done.Bid;
        HighestCompletedBid = Math.Max(HighestCompletedBid, done.Bid);
        Completed?.Invoke(done);
        if (waitingForPredecessor.Remove(done.Bid, out var next))
        {
            Start(next);
        }
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

    private void ThrowIfAborted(TxnContext ctx)
    {
        if (ctx.Bid <= AbortedThrough)
        {
            throw new TransactionAbortedException(AbortReason.Cascading, $"its batch {ctx.Bid} was aborted") { Tid = ctx.Tid };
        }
    }
}

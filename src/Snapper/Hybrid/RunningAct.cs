using Snapper.Protocol;

namespace Snapper.Hybrid;

/// <summary>
/// An ACT's record at its root actor while it runs: which PACT batches it holds up, who waits on
/// that, and its commit outcome for the ACTs that depend on it. Owned by the root actor and touched
/// only in its turns; everything other actors tell it arrives as a message to the root
/// (<see cref="IActSignals"/> sends what it tells them).
/// </summary>
/// <remarks>
/// <para>Actors report every batch placed behind the ACT in their local schedule (that batch is in
/// the ACT's AfterSet). Whenever the ACT waits for a batch — to be admitted behind it on some actor,
/// or for it to commit — the wait fails at once with <see cref="AbortReason.SerializabilityViolation"/>
/// if a batch with a bid up to the awaited one is behind the ACT: it would be before and after the
/// same span of batches (max(BeforeSet) ≥ min(AfterSet)), typically the deadlock of §4.4.2, Fig. 9a,
/// broken at once instead of after the deadlock timeout. Waits at the root are local; a participant
/// on another actor registers its wait (<see cref="Watch"/>) and is told when it is doomed.</para>
/// <para>Held-up batches are passed on along lock waits: while this ACT waits for a lock that ACT H
/// holds, H precedes it, so every batch this ACT holds up is also after H (H → this → batch), and
/// H's root is told. Wait-die lets only older ACTs wait for younger ones, so these edges form no
/// cycle and the forwarding ends.</para>
/// </remarks>
internal sealed class RunningAct(long tid, IActSignals signals)
{
    private long minBatchBehind = long.MaxValue;
    private ActorId minBatchBehindAt; // where that batch was placed behind it, to name it if it is in the way
    private List<Wait>? waits;
    private List<(long Bid, ActorId Participant)>? watchers;
    private List<ActDependency>? blockers;
    private bool? decided;
    private bool? durable;
    private TaskCompletionSource<bool>? whenDecided;
    private TaskCompletionSource<bool>? whenDurable;

    public long Tid { get; } = tid;

    /// <summary>The lowest bid of a batch placed behind the ACT on any actor (long.MaxValue: none).</summary>
    public long MinBatchBehind => minBatchBehind;

    /// <summary>The actor where the batch of <see cref="MinBatchBehind"/> was placed behind the ACT (default: none, or not known).</summary>
    public ActorId MinBatchBehindAt => minBatchBehindAt;

    /// <summary>
    /// True once its commit is ordered in the log (its CoordCommit appended, maybe not durable
    /// yet), false once it aborted. An ACT that read its prepared state under early lock release
    /// may log its own CoordCommit from then on (recovery honours it only if this one's is in the
    /// log too). Always set before the ACT ends.
    /// </summary>
    public Task<bool> WhenDecided => Outcome(decided, ref whenDecided);

    /// <summary>
    /// True once its commit and those of all its dependencies are durable, false once it aborted:
    /// what a dependent waits for before it tells its caller it committed, or before it writes a
    /// commit record that does not list its dependencies. Always set before the ACT ends.
    /// </summary>
    public Task<bool> WhenDurable => Outcome(durable, ref whenDurable);

    /// <summary>The outcomes once set (null while undecided), for remembering them after the ACT ends.</summary>
    public (bool? Decided, bool? Durable) Outcomes => (decided, durable);

    /// <summary>Sets <see cref="WhenDecided"/>; the first call wins.</summary>
    public void SetDecided(bool committed) => Set(ref decided, whenDecided, committed);

    /// <summary>Sets <see cref="WhenDurable"/>; the first call wins.</summary>
    public void SetDurable(bool committed) => Set(ref durable, whenDurable, committed);

    /// <summary>Actor <paramref name="at"/> reported: batch <paramref name="bid"/> was placed behind this ACT (or behind an ACT waiting for its lock).</summary>
    public void NoteBatchBehind(long bid, ActorId at)
    {
        if (bid >= minBatchBehind)
        {
            return;
        }

        (minBatchBehind, minBatchBehindAt) = (bid, at);
        if (waits is not null)
        {
            foreach (var wait in waits)
            {
                if (wait.Bid >= bid)
                {
                    wait.Doomed.TrySetResult();
                }
            }
        }

        if (watchers is not null)
        {
            foreach (var (watched, participant) in watchers.Where(w => w.Bid >= bid).ToList())
            {
                watchers.Remove((watched, participant));
                signals.Doom(participant, Tid, bid, at);
            }
        }

        if (blockers is not null)
        {
            foreach (var blocker in blockers)
            {
                signals.BatchBehind(blocker, bid, at);
            }
        }
    }

    /// <summary>This ACT starts waiting for a lock <paramref name="holder"/> holds (or will be granted first).</summary>
    public void BlockedBy(ActDependency holder)
    {
        (blockers ??= []).Add(holder);
        if (minBatchBehind != long.MaxValue)
        {
            signals.BatchBehind(holder, minBatchBehind, minBatchBehindAt);
        }
    }

    /// <summary>The lock wait on <paramref name="holderTid"/> ended (granted or failed).</summary>
    public void Unblocked(long holderTid) => blockers?.RemoveAll(b => b.Tid == holderTid);

    /// <summary>A participant on <paramref name="participant"/> waits for batch <paramref name="bid"/> for this ACT: tell it if that wait is doomed.</summary>
    public void Watch(long bid, ActorId participant)
    {
        if (minBatchBehind <= bid)
        {
            signals.Doom(participant, Tid, minBatchBehind, minBatchBehindAt);
        }
        else
        {
            (watchers ??= []).Add((bid, participant));
        }
    }

    /// <summary>
    /// Waits here, at the root, for <paramref name="ready"/>, which completes once batch
    /// <paramref name="bid"/> has completed or committed. Ends <see cref="BatchWaitEnd.Doomed"/> if
    /// a batch up to <paramref name="bid"/> is or gets behind this ACT (<see cref="MinBatchBehind"/>
    /// says which: the caller aborts it with <see cref="Aborts.SerializabilityViolation"/>), and
    /// <see cref="BatchWaitEnd.TimedOut"/> after <paramref name="timeout"/>.
    /// </summary>
    public async ValueTask<BatchWaitEnd> WaitForBatch(long bid, Task ready, TimeSpan timeout, TimeProvider clock)
    {
        if (ready.IsCompleted)
        {
            await ready;
            return BatchWaitEnd.Ready;
        }

        if (minBatchBehind <= bid)
        {
            return BatchWaitEnd.Doomed;
        }

        var wait = new Wait(bid);
        (waits ??= []).Add(wait);
        try
        {
            return await BatchWait.Until(ready, wait.Doomed.Task, timeout, clock);
        }
        finally
        {
            waits.Remove(wait);
        }
    }

    /// <summary>
    /// The abort of an ACT whose wait for <paramref name="bid"/> on actor <paramref name="at"/> (<paramref name="waitingFor"/>)
    /// did not end <see cref="BatchWaitEnd.Ready"/> but as <paramref name="end"/>. Asked only then,
    /// so the message is formatted only for an abort.
    /// </summary>
    public TransactionAbortedException Refusal(BatchWaitEnd end, long bid, ActorId at, string waitingFor, TimeSpan timeout, AbortReason onTimeout) =>
        Refusal(Tid, end, (minBatchBehind, minBatchBehindAt), bid, at, waitingFor, timeout, onTimeout);

    /// <summary>
    /// The same for ACT <paramref name="tid"/> waiting away from its root, where
    /// <paramref name="behind"/> is the batch its root said is behind it (read only if doomed).
    /// </summary>
    public static TransactionAbortedException Refusal(long tid, BatchWaitEnd end, (long Bid, ActorId At) behind, long bid, ActorId at, string waitingFor, TimeSpan timeout, AbortReason onTimeout) =>
        end == BatchWaitEnd.Doomed ? Aborts.SerializabilityViolation(tid, behind.Bid, behind.At, bid, waitingFor) : Aborts.BatchWaitTimedOut(tid, timeout, AbortBlocker.Batch(at, bid), waitingFor, onTimeout);

    private static Task<bool> Outcome(bool? known, ref TaskCompletionSource<bool>? waiting) => known switch
    {
        true => Decisions.True,
        false => Decisions.False,
        null => (waiting ??= new TaskCompletionSource<bool>(TaskCreationOptions.RunContinuationsAsynchronously)).Task,
    };

    private static void Set(ref bool? outcome, TaskCompletionSource<bool>? waiting, bool value)
    {
        if (outcome is not null)
        {
            return;
        }

        outcome = value;
        waiting?.TrySetResult(value);
    }

    private sealed class Wait(long bid)
    {
        public long Bid { get; } = bid;

        public TaskCompletionSource Doomed { get; } = new(TaskCreationOptions.RunContinuationsAsynchronously);
    }

    private static class Decisions
    {
        public static readonly Task<bool> True = Task.FromResult(true);
        public static readonly Task<bool> False = Task.FromResult(false);
    }
}

using Snapper.Act;

namespace Snapper.Hybrid;

/// <summary>
/// An ACT's root-side record while it runs: its phase, and which PACT batches it holds up. Actors
/// report every batch placed behind the ACT in their local schedule (that batch is in the ACT's
/// AfterSet); the ACT, whenever it waits for a batch (to be admitted behind it, or for it to
/// commit), fails at once with <see cref="AbortReason.SerializabilityViolation"/> if a batch with
/// a bid up to the awaited one is already behind it: it would be before and after the same span of
/// batches (max(BeforeSet) ≥ min(AfterSet)), and it is typically the deadlock of §4.4.2, Fig. 9a,
/// broken immediately instead of after the deadlock timeout.
/// </summary>
/// <remarks>
/// <para>Held-up batches are passed on along lock waits: while this ACT waits for a lock that ACT
/// H holds, H precedes it, so every batch this ACT holds up is also after H (H → this → batch),
/// and H is told (<see cref="BlockedBy"/>). Wait-die only lets older ACTs wait for younger ones,
/// so these edges form no cycle and the forwarding ends.</para>
/// Shared by the root and the participants in this silo (a distributed host would carry
/// <see cref="NoteBatchBehind"/> as a one-way message to the root), so it locks.
/// </remarks>
internal sealed class RunningAct(long tid)
{
    private readonly object gate = new();
    private long minBatchBehind = long.MaxValue;
    private List<Wait>? waits;
    private List<RunningAct>? blockers;

    // Calls of this ACT under way anywhere, and the actors it has reached: the root decides only
    // once every call has returned, and aborts on actors its execution info never heard of.
    private int callsInFlight;
    private TaskCompletionSource? callsReturned;
    private List<ActorId>? joined;

    // Most ACTs are never anyone's dependency: their outcomes get a task only when asked for.
    private LazyOutcome decided;
    private LazyOutcome durable;

    public long Tid { get; } = tid;

    public ActPhase Phase { get; set; } = ActPhase.Running;

    /// <summary>
    /// True once its commit is ordered in the log (its CoordCommit appended, maybe not durable
    /// yet), false once it aborted. An ACT that read its prepared state under early lock release
    /// may log its own CoordCommit from then on (recovery honours it only if this one's is in the
    /// log too). Always set before the ACT ends.
    /// </summary>
    public Task<bool> WhenDecided => decided.Task(gate);

    /// <summary>
    /// True once its commit and those of all its dependencies are durable, false once it aborted:
    /// what a dependent waits for before it tells its caller it committed, or before it writes a
    /// commit record that does not list its dependencies. Always set before the ACT ends.
    /// </summary>
    public Task<bool> WhenDurable => durable.Task(gate);

    /// <summary>Caller actor, before CallActor sends the call.</summary>
    public void CallStarted()
    {
        lock (gate)
        {
            callsInFlight++;
        }
    }

    /// <summary>Caller actor, once the call returned or failed.</summary>
    public void CallEnded()
    {
        TaskCompletionSource? wake = null;
        lock (gate)
        {
            if (--callsInFlight == 0)
            {
                (wake, callsReturned) = (callsReturned, null);
            }
        }

        wake?.TrySetResult();
    }

    /// <summary>Completes when no call of this ACT is under way.</summary>
    public Task WhenCallsReturned()
    {
        lock (gate)
        {
            return callsInFlight == 0
                ? System.Threading.Tasks.Task.CompletedTask
                : (callsReturned ??= new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously)).Task;
        }
    }

    /// <summary>Participant → root: this ACT now has a record on <paramref name="actor"/>.</summary>
    public void Joined(ActorId actor)
    {
        lock (gate)
        {
            (joined ??= []).Add(actor);
        }
    }

    /// <summary>Every actor that has a record of this ACT (or had one).</summary>
    public ActorId[] JoinedActors()
    {
        lock (gate)
        {
            return joined is null ? [] : [.. joined];
        }
    }

    /// <summary>Sets <see cref="WhenDecided"/>; the first call wins.</summary>
    public void SetDecided(bool committed) => decided.Set(gate, committed);

    /// <summary>Sets <see cref="WhenDurable"/>; the first call wins.</summary>
    public void SetDurable(bool committed) => durable.Set(gate, committed);

    /// <summary>The lowest bid of a batch placed behind the ACT on any actor (long.MaxValue: none).</summary>
    public long MinBatchBehind
    {
        get
        {
            lock (gate)
            {
                return minBatchBehind;
            }
        }
    }

    /// <summary>Actor → root: batch <paramref name="bid"/> was placed behind this ACT (or behind an ACT waiting for its lock).</summary>
    public void NoteBatchBehind(long bid)
    {
        List<Wait>? doomed = null;
        RunningAct[]? forward = null;
        lock (gate)
        {
            if (bid >= minBatchBehind)
            {
                return;
            }

            minBatchBehind = bid;
            if (blockers is { Count: > 0 })
            {
                forward = [.. blockers];
            }

            if (waits is not null)
            {
                foreach (var wait in waits)
                {
                    if (wait.Bid >= bid)
                    {
                        (doomed ??= []).Add(wait);
                    }
                }
            }
        }

        if (doomed is not null)
        {
            foreach (var wait in doomed)
            {
                wait.Doomed.TrySetResult();
            }
        }

        if (forward is not null)
        {
            foreach (var blocker in forward)
            {
                blocker.NoteBatchBehind(bid);
            }
        }
    }

    /// <summary>This ACT starts waiting for a lock <paramref name="holder"/> holds (or will be granted first).</summary>
    public void BlockedBy(RunningAct holder)
    {
        long behind;
        lock (gate)
        {
            (blockers ??= []).Add(holder);
            behind = minBatchBehind;
        }

        if (behind != long.MaxValue)
        {
            holder.NoteBatchBehind(behind);
        }
    }

    /// <summary>The lock wait ended (granted or failed).</summary>
    public void Unblocked(RunningAct holder)
    {
        lock (gate)
        {
            blockers?.Remove(holder);
        }
    }

    /// <summary>
    /// Waits for <paramref name="ready"/>, which completes once batch <paramref name="bid"/> has
    /// completed or committed. Throws <see cref="TransactionAbortedException"/>: with
    /// <see cref="AbortReason.SerializabilityViolation"/> if a batch up to <paramref name="bid"/> is
    /// or gets behind this ACT, with <paramref name="onTimeout"/> after <paramref name="timeout"/>.
    /// </summary>
    public async Task WaitForBatch(long bid, Task ready, string waitingFor, TimeSpan timeout, AbortReason onTimeout, TimeProvider clock)
    {
        if (ready.IsCompleted)
        {
            await ready;
            return;
        }

        var wait = new Wait(bid);
        lock (gate)
        {
            if (minBatchBehind <= bid)
            {
                throw Violation(bid, waitingFor);
            }

            (waits ??= []).Add(wait);
        }

        using var stopTimer = new CancellationTokenSource();
        try
        {
            var timer = Task.Delay(timeout, clock, stopTimer.Token);
            var first = await Task.WhenAny(ready, wait.Doomed.Task, timer);
            if (first == ready)
            {
                await ready;
                return;
            }

            if (first == wait.Doomed.Task)
            {
                throw Violation(bid, waitingFor);
            }

            throw new TransactionAbortedException(onTimeout, $"waited {timeout.TotalMilliseconds:0} ms for {waitingFor} (hybrid deadlock timeout)") { Tid = Tid };
        }
        finally
        {
            stopTimer.Cancel();
            lock (gate)
            {
                waits.Remove(wait);
            }
        }
    }

    private TransactionAbortedException Violation(long bid, string waitingFor) =>
        new(AbortReason.SerializabilityViolation, $"it needs {waitingFor}, but batch {MinBatchBehind} ≤ {bid} is already scheduled after it on another actor: max(BeforeSet) ≥ min(AfterSet)") { Tid = Tid };

    private sealed class Wait(long bid)
    {
        public long Bid { get; } = bid;

        public TaskCompletionSource Doomed { get; } = new(TaskCreationOptions.RunContinuationsAsynchronously);
    }

    /// <summary>A true/false outcome whose task is made only if someone waits for it.</summary>
    private struct LazyOutcome
    {
        private static readonly Task<bool> True = System.Threading.Tasks.Task.FromResult(true);
        private static readonly Task<bool> False = System.Threading.Tasks.Task.FromResult(false);
        private TaskCompletionSource<bool>? waiting;
        private bool? outcome;

        public Task<bool> Task(object gate)
        {
            lock (gate)
            {
                return outcome switch
                {
                    true => True,
                    false => False,
                    null => (waiting ??= new TaskCompletionSource<bool>(TaskCreationOptions.RunContinuationsAsynchronously)).Task,
                };
            }
        }

        public void Set(object gate, bool value)
        {
            TaskCompletionSource<bool>? wake;
            lock (gate)
            {
                if (outcome is not null)
                {
                    return;
                }

                outcome = value;
                wake = waiting;
            }

            wake?.TrySetResult(value);
        }
    }
}

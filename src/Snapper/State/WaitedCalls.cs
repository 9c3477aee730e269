namespace Snapper.State;

/// <summary>
/// The calls an engine's transactions wait on from this activation (<c>CallActor</c>), and, by
/// transaction, the actors whose activations are going. Orleans gives a going activation no message
/// until the calls running in it return; when one of them waits on a call tree that comes back into
/// it, neither can end before the response timeout. So the going actor tells the actors its calls
/// wait on (<see cref="Protocol.ISnapperParticipant.StopWaiting"/>), each passes the notice on down
/// its own waited calls, and a call back into the going actor gives up where it was made, or is
/// refused before it is sent: the transaction aborts at once instead.
/// </summary>
/// <remarks>
/// One per engine of an activation, touched only in the actor's turns. The notices are kept for a
/// bounded number of transactions, and dropped when a transaction ends here (<see cref="Forget"/>).
/// </remarks>
internal sealed class WaitedCalls
{
    private const int RememberedTransactions = 256;

    private readonly Dictionary<long, List<Waited>> waiting = new();
    private readonly Dictionary<long, List<ActorId>> going = new();
    private readonly Queue<long> goingOrder = new();

    /// <summary>Every transaction waiting here on a call, with the actors it waits on.</summary>
    public IEnumerable<(long Tid, ActorId Target)> All =>
        waiting.SelectMany(w => w.Value.Select(call => (w.Key, call.Target)));

    /// <summary>
    /// Completes as <paramref name="answer"/> does, unless transaction <paramref name="tid"/> hears
    /// first that <paramref name="target"/> is going (<see cref="Going"/>): then it fails with the
    /// refusal at once, and the answer, whenever it comes, is dropped. The answer itself if it is
    /// already in; else <see cref="End"/> once the wait is over.
    /// </summary>
    /// <remarks>
    /// No extra turn on the actor's scheduler: the answer completes the wait on its own thread, and
    /// the caller's await resumes in the actor's turn as it would on the answer.
    /// </remarks>
    public Task Await(long tid, ActorId target, Task answer)
    {
        if (answer.IsCompleted)
        {
            return answer;
        }

        var call = new Waited(target);
        if (!waiting.TryGetValue(tid, out var calls))
        {
            waiting[tid] = calls = [];
        }

        calls.Add(call);
        answer.ContinueWith(static (answered, state) => ((Waited)state!).Answered(answered), call, CancellationToken.None, TaskContinuationOptions.ExecuteSynchronously, TaskScheduler.Default);
        return call.Task;
    }

    /// <summary>The wait <paramref name="wait"/> that <see cref="Await"/> returned for <paramref name="tid"/> is over.</summary>
    public void End(long tid, Task wait)
    {
        if (waiting.TryGetValue(tid, out var calls))
        {
            for (var i = 0; i < calls.Count; i++)
            {
                if (calls[i].Task == wait)
                {
                    calls.RemoveAt(i);
                    break;
                }
            }

            if (calls.Count == 0)
            {
                waiting.Remove(tid);
            }
        }
    }

    /// <summary>Whether transaction <paramref name="tid"/> has heard that <paramref name="target"/> is going.</summary>
    public bool IsGoing(long tid, ActorId target) => going.TryGetValue(tid, out var actors) && actors.Contains(target);

    /// <summary>The actors transaction <paramref name="tid"/> has heard are going, or null.</summary>
    public IReadOnlyList<ActorId>? GoingFor(long tid) => going.GetValueOrDefault(tid);

    /// <summary>
    /// Transaction <paramref name="tid"/> hears that <paramref name="actor"/> is going: its waited
    /// calls into that actor give up, and the actors its other waited calls are on are returned, for
    /// the notice to go on down to them. Null if it had heard this already (the notice stops here).
    /// <paramref name="gaveUp"/>: a waited call into that actor gave up.
    /// </summary>
    public List<ActorId>? Going(long tid, ActorId actor, out bool gaveUp)
    {
        gaveUp = false;
        if (!going.TryGetValue(tid, out var actors))
        {
            going[tid] = actors = [];
            goingOrder.Enqueue(tid);
            if (goingOrder.Count > RememberedTransactions)
            {
                going.Remove(goingOrder.Dequeue());
            }
        }
        else if (actors.Contains(actor))
        {
            return null;
        }

        actors.Add(actor);
        var onward = new List<ActorId>();
        foreach (var call in waiting.GetValueOrDefault(tid)?.ToArray() ?? [])
        {
            if (call.Target == actor)
            {
                gaveUp |= call.GiveUp(Refusal(tid, actor));
            }
            else if (!onward.Contains(call.Target))
            {
                onward.Add(call.Target);
            }
        }

        return onward;
    }

    /// <summary>Transaction <paramref name="tid"/> has ended here.</summary>
    public void Forget(long tid) => going.Remove(tid);

    /// <summary>Why a call of <paramref name="tid"/> into <paramref name="actor"/> is given up or refused.</summary>
    public static TransactionAbortedException Refusal(long tid, ActorId actor) =>
        new(AbortReason.Failure, $"actor {actor} is being deactivated while the transaction runs there, so its call back into {actor} cannot be served") { Tid = tid };

    // The wait for one answer: completed by the answer or given up, whichever comes first.
    private sealed class Waited(ActorId target) : TaskCompletionSource
    {
        public ActorId Target { get; } = target;

        public void Answered(Task answer)
        {
            if (answer.IsFaulted)
            {
                TrySetException(answer.Exception.InnerExceptions);
            }
            else if (answer.IsCanceled)
            {
                TrySetCanceled();
            }
            else
            {
                TrySetResult();
            }
        }

        public bool GiveUp(Exception refusal) => TrySetException(refusal);
    }
}

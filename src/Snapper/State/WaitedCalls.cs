namespace Snapper.State;

/// <summary>
/// The calls an engine's transactions wait on from this activation (<c>CallActor</c>), and, by
/// transaction, the actors whose activations are going. Orleans gives a going activation no message
/// until the calls running in it return; when one of them waits on a call tree that comes back into
/// it, neither can end before the response timeout. So the going actor tells the actors its calls
/// wait on (<see cref="Protocol.ISnapperParticipant.StopWaiting"/>), each passes the notice on down
/// its own waited calls, and a call back into the going actor gives up where it was made, or is
/// refused before it is sent: the transaction aborts at once instead. A notice can itself queue at
/// an activation that is going too (a tree through two going actors): so the calls a going
/// activation's transactions make are given up once they have waited <see cref="GoingPatience"/>
/// (<see cref="Bound"/>).
/// </summary>
/// <remarks>
/// One per engine of an activation, touched only in the actor's turns. The notices are kept for a
/// bounded number of transactions, and dropped when a transaction ends here (<see cref="Forget"/>).
/// </remarks>
internal sealed class WaitedCalls
{
    private const int RememberedTransactions = 256;

    /// <summary>
    /// How long a call made by a transaction of a going activation is waited for: long enough for a
    /// callee's ordinary work, short enough that the activation goes about a second after its calls'
    /// own work ends, when their answers are stuck behind another going activation.
    /// </summary>
    public static readonly TimeSpan GoingPatience = TimeSpan.FromSeconds(1);

    private readonly Dictionary<long, List<Waited>> waiting = new();
    private readonly Dictionary<long, List<ActorId>> going = new();
    private readonly Queue<long> goingOrder = new();
    private ActorId goingSelf;
    private TimeProvider? goingClock; // set once this activation is going (Bound): the calls made then are bounded

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
    /// <remarks>
    /// With <paramref name="late"/> (a PACT's call from actor <paramref name="caller"/>), a wait past the usual answer time asks the
    /// callee for the answer it gave, on <paramref name="terms"/> (<see cref="LateAnswers"/>); <see cref="End"/> returns it.
    /// </remarks>
    public Task Await(long tid, ActorId target, Task answer, LateAnswers? late = null, ActorId caller = default, LateCallTerms terms = default)
    {
        if (answer.IsCompleted)
        {
            return answer;
        }

        var call = new Waited(tid, target, goingSelf, goingClock, late, caller) { Terms = terms };
        if (!waiting.TryGetValue(tid, out var calls))
        {
            waiting[tid] = calls = [];
        }

        calls.Add(call);
        late?.Watch(call);
        answer.ContinueWith(static (answered, state) => ((Waited)state!).Answered(answered), call, CancellationToken.None, TaskContinuationOptions.ExecuteSynchronously, TaskScheduler.Default);
        return call.Task;
    }

    /// <summary>
    /// This activation is going (<paramref name="self"/>): every call made from now on is given up
    /// once it has waited <see cref="GoingPatience"/> (<paramref name="clock"/> times them). Calls
    /// already waited on are not: a going activation still lets its transactions finish, and a
    /// PACT waiting on a call made before has priority over the ACTs in its way.
    /// </summary>
    public void Bound(ActorId self, TimeProvider clock)
    {
        goingSelf = self;
        goingClock = clock;
    }

    /// <summary>
    /// The wait <paramref name="wait"/> that <see cref="Await"/> returned for <paramref name="tid"/>
    /// is over. True if it ended with the answer the callee gave again (<see cref="LateAnswers"/>),
    /// not the call's own: then <paramref name="result"/> is what the call returned.
    /// </summary>
    public bool End(long tid, Task wait, out object? result)
    {
        result = null;
        var recovered = false;
        if (waiting.TryGetValue(tid, out var calls))
        {
            for (var i = 0; i < calls.Count; i++)
            {
                if (calls[i].Task == wait)
                {
                    (recovered, result) = (calls[i].IsRecovered, calls[i].RecoveredResult);
                    calls.RemoveAt(i);
                    break;
                }
            }

            if (calls.Count == 0)
            {
                waiting.Remove(tid);
            }
        }

        return recovered;
    }

    /// <summary>
    /// Transaction <paramref name="tid"/> calls <paramref name="target"/> again: its calls there
    /// waited on now are no longer asked about when late (<see cref="LateAnswers"/>), since which of
    /// them an answer given again belongs to could not be told.
    /// </summary>
    public void NoLongerAsk(long tid, ActorId target)
    {
        foreach (var call in waiting.GetValueOrDefault(tid) ?? [])
        {
            if (call.Target == target)
            {
                call.Askable = false;
            }
        }
    }

    /// <summary>The actors transaction <paramref name="tid"/>'s calls from here are under way on, each once.</summary>
    public List<ActorId> TargetsOf(long tid) =>
        waiting.TryGetValue(tid, out var calls) ? [.. calls.Select(call => call.Target).Distinct()] : [];

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

    /// <summary>Why a call of <paramref name="tid"/> from going actor <paramref name="self"/> into <paramref name="target"/> is given up.</summary>
    public static TransactionAbortedException TooLongWhileGoing(long tid, ActorId self, ActorId target) =>
        new(AbortReason.Failure, $"actor {self} is being deactivated, and its call into {target} did not end within {GoingPatience.TotalSeconds:0.#} s (its answer may wait for {self} itself), so the transaction gives it up") { Tid = tid };

    // The wait for one answer: completed by the answer or given up, whichever comes first; bounded
    // (GoingPatience) when made while its activation is going (clock set); or completed by the
    // answer the callee gives again when the call's own is late (LateAnswers). The timer and the
    // answers complete the wait on their own threads; the caller resumes in the actor's turn.
    internal sealed class Waited : TaskCompletionSource
    {
        private readonly long tid;
        private readonly ActorId self;
        private readonly ITimer? patience;
        private readonly LateAnswers? late;
        private bool done;
        private bool askable = true;

        public Waited(long tid, ActorId target, ActorId self, TimeProvider? clock, LateAnswers? late, ActorId caller)
        {
            this.tid = tid;
            this.self = self;
            this.late = late;
            Caller = caller;
            Target = target;
            patience = clock?.CreateTimer(static state => ((Waited)state!).TooLong(), this, GoingPatience, Timeout.InfiniteTimeSpan);
        }

        public ActorId Target { get; }

        public long Tid => tid;

        /// <summary>The actor that made the call (for <see cref="LateAnswers"/>).</summary>
        public ActorId Caller { get; }

        /// <summary>What the callee is asked when the answer is late (<see cref="LateAnswers"/>).</summary>
        public LateCallTerms Terms { get; init; }

        // LateAnswers' bookkeeping: the list of watched calls (under its lock), when the call was
        // made, when to ask next, and whether the wait is over (set without the lock).
        internal Waited? Previous { get; set; }

        internal Waited? Next { get; set; }

        internal bool Done { get => Volatile.Read(ref done); set => Volatile.Write(ref done, value); }

        /// <summary>False once the transaction called the same actor again (<see cref="NoLongerAsk"/>): an answer given again is then not taken.</summary>
        internal bool Askable { get => Volatile.Read(ref askable); set => Volatile.Write(ref askable, value); }

        internal long Sent { get; set; }

        internal long AskAt { get; set; }

        public bool IsRecovered { get; private set; }

        public object? RecoveredResult { get; private set; }

        public void Answered(Task answer)
        {
            patience?.Dispose();
            late?.Unwatch(this, answered: true);
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

        public bool GiveUp(Exception refusal)
        {
            late?.Unwatch(this, answered: false);
            return TrySetException(refusal);
        }

        /// <summary>The callee gave the answer again (<see cref="LateAnswers"/>): the wait ends with it, as with the call's own.</summary>
        public void Recover(Protocol.LateCallAnswer answer)
        {
            if (Task.IsCompleted || !Askable)
            {
                return;
            }

            patience?.Dispose();
            late?.Unwatch(this, answered: false);
            if (answer.Failure is { } failure)
            {
                TrySetException(failure);
            }
            else
            {
                RecoveredResult = answer.Result;
                IsRecovered = true;
                TrySetResult();
            }
        }

        private void TooLong()
        {
            late?.Unwatch(this, answered: false);
            TrySetException(TooLongWhileGoing(tid, self, Target));
        }
    }
}

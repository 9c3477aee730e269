namespace Snapper.Protocol;

/// <summary>
/// How a transaction's ending becomes the <see cref="TransactionAbortedException"/> its caller gets:
/// which <see cref="AbortReason"/>, and the cause inside. One place for the ACT root, the PACT engine
/// and the hybrid check, so the same ending is reported the same way whichever saw it.
/// </summary>
internal static class Aborts
{
    /// <summary>
    /// A transaction failed because of <paramref name="failure"/>: an abort keeps its reason; misuse
    /// of the API, and Orleans failing to deliver a message (<see cref="IsUndelivered"/>), are a
    /// <see cref="AbortReason.Failure"/>; anything else user code threw is a
    /// <see cref="AbortReason.User"/> abort. A call whose answer Orleans' response timeout replaced
    /// is told apart where it fails, at its <c>CallActor</c> (<see cref="OfCall"/>).
    /// </summary>
    public static TransactionAbortedException AbortedBy(long tid, Exception failure) => AbortedBy(tid, failure, null);

    /// <summary>
    /// <see cref="AbortedBy(long, Exception)"/>, naming the calls the transaction is known to need
    /// (<paramref name="reached"/>, or else what the abort it wraps names) for a promoted run.
    /// </summary>
    public static TransactionAbortedException AbortedBy(long tid, Exception failure, AccessSet? reached) => failure switch
    {
        TransactionAbortedException aborted => new TransactionAbortedException(aborted.Reason, aborted.Detail, aborted) { Tid = tid, Reached = reached ?? aborted.Reached, Blocker = aborted.Blocker },
        SnapperException misuse => new TransactionAbortedException(AbortReason.Failure, misuse.Message, misuse) { Tid = tid },
        _ when IsUndelivered(failure) => new TransactionAbortedException(AbortReason.Failure, $"Orleans could not deliver a message ({failure.GetType().Name}): {failure.Message}", failure) { Tid = tid },
        _ => new TransactionAbortedException(AbortReason.User, $"user code threw {failure.GetType().Name}: {failure.Message}", failure) { Tid = tid },
    };

    /// <summary>The <see cref="AbortReason"/> <see cref="AbortedBy(long, Exception)"/> gives <paramref name="failure"/>.</summary>
    public static AbortReason ReasonOf(Exception failure) => failure switch
    {
        TransactionAbortedException aborted => aborted.Reason,
        SnapperException => AbortReason.Failure,
        _ when IsUndelivered(failure) => AbortReason.Failure,
        _ => AbortReason.User,
    };

    /// <summary>
    /// Orleans could not deliver a message or its answer: a silo gone or shutting down, a message
    /// rejected, a gateway or an activation over its limits. User code does not throw these, so
    /// wherever one surfaces the runtime failed, not the transaction's code.
    /// </summary>
    public static bool IsUndelivered(Exception failure) =>
        failure is OrleansMessageRejectionException or GatewayTooBusyException or LimitExceededException or ClientNotAvailableException;

    /// <summary>
    /// What a <c>CallActor</c> of transaction <paramref name="tid"/> to <paramref name="target"/>
    /// that threw <paramref name="failure"/> means for the transaction. The callee's own failure
    /// stays what it is. A call Orleans lost is a <see cref="AbortReason.Failure"/>: one it could
    /// not deliver, or one it gave a <see cref="TimeoutException"/> for while no answer came from
    /// the callee (<paramref name="answered"/> false): its response timeout, not user code, which
    /// may throw a <see cref="TimeoutException"/> of its own, in the callee or in the body.
    /// </summary>
    public static Exception OfCall(long tid, ActorId target, Exception failure, bool answered) =>
        !answered && (failure is TimeoutException || IsUndelivered(failure))
            ? new TransactionAbortedException(AbortReason.Failure, $"its call to actor {target} was lost ({failure.GetType().Name}): {failure.Message}", failure) { Tid = tid }
            : failure;

    /// <summary>
    /// A PACT of batch <paramref name="bid"/>, at or after one that failed: it aborts with the
    /// cascade, through no fault of its own. The batch is what is known here of who was in its way
    /// (the batch that failed first is known to its coordinator).
    /// </summary>
    /// <remarks>
    /// <paramref name="cascade"/> is <see cref="AbortReason.LateCall"/> where the cascade started
    /// from PACTs that gave up late calls: the PACT runs again, as they do.
    /// </remarks>
    public static TransactionAbortedException Cascaded(long tid, long bid, AbortReason cascade = AbortReason.Cascading) =>
        new(cascade, CascadeDetail(cascade, "another PACT")) { Tid = tid, Blocker = AbortBlocker.Batch(default, bid) };

    /// <summary>
    /// The PACTs of a batch an abort cascade takes, told by its coordinator, which knows the batch
    /// the cascade started from and what was in its way there (<paramref name="origin"/>).
    /// </summary>
    public static TransactionAbortedException Cascaded(AbortBlocker origin, AbortReason cascade) =>
        new(cascade, CascadeDetail(cascade, $"batch {origin.Bid}")) { Blocker = origin };

    private static string CascadeDetail(AbortReason cascade, string first) => cascade == AbortReason.LateCall
        ? $"aborted with the batches after {first}, where a PACT gave up a late call and its write could not be taken back alone"
        : $"aborted with the batches after {first}, which failed";

    /// <summary>
    /// PACT <paramref name="tid"/>'s call into <paramref name="actor"/> had not arrived there long
    /// after such calls are answered, and was refused ahead (<see cref="State.LateAnswers"/>).
    /// </summary>
    public static TransactionAbortedException LateCall(long tid, ActorId actor) =>
        new(AbortReason.LateCall, $"its call into actor {actor} had not arrived there long after such calls are answered, so it gave up its turn there rather than hold up the batches behind it") { Tid = tid };

    /// <summary>
    /// A <see cref="AbortReason.LateCall"/> abort the caller would see (a promoted run's, or a run's
    /// past its reruns, which can only have read a write taken back): told as the cascade it is.
    /// </summary>
    public static TransactionAbortedException AsCascading(TransactionAbortedException lateCall) =>
        new(AbortReason.Cascading, lateCall.Detail, lateCall) { Tid = lateCall.Tid, Blocker = lateCall.Blocker };

    /// <summary>A call (or state access) of PACT <paramref name="tid"/> after it aborted because of <paramref name="abortedBy"/>: the reason is its own abort's.</summary>
    public static TransactionAbortedException PactRefused(long tid, Exception? abortedBy) =>
        new(abortedBy is TransactionAbortedException aborted ? aborted.Reason : AbortReason.User, $"PACT {tid} has aborted: {abortedBy?.Message}", abortedBy)
        {
            Tid = tid,
            Reached = (abortedBy as TransactionAbortedException)?.Reached,
            Blocker = (abortedBy as TransactionAbortedException)?.Blocker,
        };

    /// <summary>
    /// A call of PACT <paramref name="tid"/> that its declaration does not cover: it needs
    /// <paramref name="calls"/> calls on <paramref name="actor"/> (what a promoted run declares next).
    /// </summary>
    public static TransactionAbortedException Undeclared(long tid, ActorId actor, int calls, string detail) =>
        new(AbortReason.DeclarationError, detail) { Tid = tid, Reached = AccessSet.Of(actor, calls) };

    /// <summary>
    /// A reconnaissance (a promoted ACT's, <c>Reconnaissance/ReconnaissanceParticipant</c>) ran past
    /// its deadline, <paramref name="timeout"/> after it started: the body does not end within a
    /// transaction's time, so the transaction aborts instead of running it as a PACT.
    /// </summary>
    public static TransactionAbortedException ReconnaissancePastDeadline(TimeSpan timeout) =>
        new(AbortReason.Timeout, $"its reconnaissance ran past the transaction's deadline of {timeout}, so its body does not end in time");

    /// <summary>
    /// The first call of ACT <paramref name="tid"/> reached its root <paramref name="root"/> past its
    /// deadline (a starved or paused sender, a slow network): it touched nothing, and the caller is
    /// told it timed out rather than that its context was misused.
    /// </summary>
    public static TransactionAbortedException StartPastDeadline(long tid, ActorId root, TimeSpan timeout) =>
        new(AbortReason.Timeout, $"its first call reached its root {root} past the transaction's deadline of {timeout}") { Tid = tid };

    /// <summary>
    /// A reconnaissance call made <paramref name="calls"/> calls from its subtree without ending: the
    /// body is taken for one that never ends, which would otherwise spin until its deadline.
    /// </summary>
    public static TransactionAbortedException ReconnaissanceUnbounded(int calls) =>
        new(AbortReason.Timeout, $"its reconnaissance made {calls} calls from one call without the body ending, so it is taken for a body that never ends");

    /// <summary>The violation an ACT waiting for batch <paramref name="bid"/> dies of, when batch <paramref name="behind"/> ≤ it is behind the ACT on <paramref name="behindAt"/> (Snapper §4.4.2).</summary>
    public static TransactionAbortedException SerializabilityViolation(long tid, long behind, ActorId behindAt, long bid, string waitingFor) =>
        new(AbortReason.SerializabilityViolation, $"it needs {waitingFor}, but batch {behind} ≤ {bid} is already scheduled after it on another actor: max(BeforeSet) ≥ min(AfterSet)")
        {
            Tid = tid,
            Blocker = AbortBlocker.Batch(behindAt, behind),
        };

    /// <summary>An ACT that waited <paramref name="timeout"/> for a batch (<paramref name="inTheWay"/>, <paramref name="waitingFor"/>) gives up with <paramref name="reason"/>.</summary>
    public static TransactionAbortedException BatchWaitTimedOut(long tid, TimeSpan timeout, AbortBlocker inTheWay, string waitingFor, AbortReason reason) =>
        new(reason, $"waited {timeout.TotalMilliseconds:0} ms for {waitingFor} (hybrid deadlock timeout)") { Tid = tid, Blocker = inTheWay };
}

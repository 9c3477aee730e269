namespace Snapper;

/// <summary>Per-transaction choices for an ACT; anything left null takes the silo's default.</summary>
public sealed record ActOptions
{
    /// <summary>The silo's defaults.</summary>
    public static ActOptions Default { get; } = new();

    /// <summary>Early lock release for this ACT (the Thorp protocol).</summary>
    public static ActOptions EarlyRelease { get; } = new() { EarlyLockRelease = true };

    /// <summary>
    /// True: release this ACT's locks when a participant has voted in phase one, before its prepare
    /// record is durable (Thorp §II). Later ACTs then read its prepared state and take a commit
    /// dependency on it: they commit only after it commits and abort if it aborts
    /// (<see cref="AbortReason.Cascading"/>). False: strict two-phase locking, locks held until the
    /// decision. Null: the silo's <c>SnapperOptions.EarlyLockRelease</c>.
    /// </summary>
    public bool? EarlyLockRelease { get; init; }

    /// <summary>
    /// True: when an attempt aborts for a concurrency reason (<see cref="IsRetryable"/>), run the
    /// transaction again as a PACT declaring the actors the attempt called, and how often. A PACT
    /// never aborts for concurrency, so a contended ACT commits on that run instead of racing again.
    /// A promoted run that calls an actor its declaration missed (the attempt stopped before it got
    /// there) aborts at that call; the body then runs once as a reconnaissance (no lock, batch or
    /// log; its writes dropped), which learns all its calls, and the next run declares them. The
    /// body runs once per run and per reconnaissance; what a reconnaissance returns or throws is
    /// dropped, and in its actors <see cref="TxnContext.Tid"/> reads 0. The caller sees the same result
    /// and exceptions; on a final abort, the same <see cref="AbortReason"/>. Promotion happens
    /// before <see cref="MaxAttempts"/> is spent and is not counted in it. While most of a client's
    /// ACTs lose their first race, a new one starts as such a PACT at once, declaring its first
    /// actor and the actors its call's arguments name, and learning the rest from the calls
    /// refused (one in 64 still tries as an ACT). The first promoted run's tid is known once its
    /// call is sent: a body that reads it before runs again, placed up front.
    /// False: retries, if any, run as ACTs. Null: the silo's <c>SnapperOptions.Promote</c> (on
    /// unless changed).
    /// </summary>
    public bool? Promote { get; init; }

    /// <summary>
    /// How many times <c>RunAct</c> runs the ACT before it gives up: 1 (the default) runs it once.
    /// A retry follows an abort for a concurrency reason (wait-die, upgrade conflict, deadlock,
    /// serializability, cascade), never <see cref="AbortReason.User"/>,
    /// <see cref="AbortReason.DeclarationError"/>, <see cref="AbortReason.Failure"/> or
    /// <see cref="AbortReason.Timeout"/>, and keeps the first attempt's age, so wait-die lets it win
    /// in the end instead of starving it. The body runs once per attempt.
    /// </summary>
    public int MaxAttempts { get; init; } = 1;

    /// <summary>
    /// Called with the abort of each attempt that <c>RunAct</c> runs again (as an ACT, promoted to a
    /// PACT, or a promoted run again after a cascade), before it does: the caller sees only the
    /// last attempt's abort, and this is how to learn why the others lost their race and who was
    /// in their way (<see cref="TransactionAbortedException.Blocker"/>), to log or count it. It
    /// runs on the caller's path: keep it short, and do not throw (what it throws replaces the retry).
    /// </summary>
    public Action<TransactionAbortedException>? OnRetry { get; init; }

    /// <summary>The pause before the first retry, doubled for each further one (with jitter); 1 ms by default.</summary>
    public TimeSpan RetryBackoff { get; init; } = TimeSpan.FromMilliseconds(1);

    /// <summary>True for the abort reasons a retry may get past: the ACT lost a race, nothing in it was wrong.</summary>
    public static bool IsRetryable(AbortReason reason) => reason is AbortReason.WaitDie or AbortReason.UpgradeConflict or AbortReason.Deadlock
        or AbortReason.SerializabilityViolation or AbortReason.SerializabilityUncertain or AbortReason.Cascading;
}

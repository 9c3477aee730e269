namespace Snapper;

/// <summary>
/// Thrown to the caller of a transaction that was rolled back on every participant, and thrown by
/// user code to abort the transaction it runs in (use <see cref="AbortReason.User"/>).
/// </summary>
[GenerateSerializer]
public sealed class TransactionAbortedException : TransactionException
{
    /// <summary>Aborts with a reason and a message saying what went wrong.</summary>
    public TransactionAbortedException(AbortReason reason, string message)
        : this(reason, message, null)
    {
    }

    /// <summary>Aborts with a reason, a message and the exception that caused it.</summary>
    public TransactionAbortedException(AbortReason reason, string message, Exception? innerException)
        : base(0, message, innerException) => Reason = reason;

    /// <summary>Why the transaction aborted.</summary>
    [Id(0)]
    public AbortReason Reason { get; }

    /// <summary>
    /// The calls the aborted attempt is known to need, for a promoted run to declare (root → client):
    /// an ACT's root sets the actors its attempt reached and how often each was called; a PACT
    /// refused for a call its declaration lacks sets that actor with the calls it needs there.
    /// </summary>
    [Id(1)]
    internal AccessSet? Reached { get; init; }

    /// <summary>
    /// For a concurrency abort, who was in the way: where the transaction waited, for what, and the
    /// transactions or batch it waited for (null for an abort no other transaction caused: user
    /// code, a declaration error, a failure).
    /// </summary>
    [Id(2)]
    public AbortBlocker? Blocker { get; init; }

    /// <inheritdoc />
    public override string Message => (Tid == 0 ? $"[{Reason}] {Detail}" : $"[{Reason}] transaction {Tid}: {Detail}") + (Blocker is { } blocker ? $" (in the way: {blocker})" : "");
}

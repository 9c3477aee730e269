namespace Snapper;

/// <summary>
/// Thrown to the caller of a transaction that was rolled back on every participant, and thrown by
/// user code to abort the transaction it runs in (use <see cref="AbortReason.User"/>).
/// </summary>
[GenerateSerializer]
public sealed class TransactionAbortedException : Exception
{
    /// <summary>Aborts with a reason and a message saying what went wrong.</summary>
    public TransactionAbortedException(AbortReason reason, string message)
        : this(reason, message, null)
    {
    }

    /// <summary>Aborts with a reason, a message and the exception that caused it.</summary>
    public TransactionAbortedException(AbortReason reason, string message, Exception? innerException)
        : base(message, innerException)
    {
        Reason = reason;
        detail = message;
    }

    /// <summary>Why the transaction aborted.</summary>
    [Id(0)]
    public AbortReason Reason { get; }

    /// <summary>The message without the reason and tid prefix that <see cref="Message"/> adds.</summary>
    public string Detail => detail;

    /// <summary>The aborted transaction's id, when the runtime knows it (0 otherwise).</summary>
    [Id(1)]
    public long Tid { get; init; }

    /// <inheritdoc />
    public override string Message => Tid == 0 ? $"[{Reason}] {detail}" : $"[{Reason}] transaction {Tid}: {detail}";

    // Kept apart from Exception.Message, which a serializer fills with the formatted message.
    [Id(2)]
    private readonly string detail;
}

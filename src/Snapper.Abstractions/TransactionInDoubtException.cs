namespace Snapper;

/// <summary>
/// Thrown to the caller of a transaction whose outcome its root could not learn: a commit answer
/// was lost or came too late (a response timeout, a participant's activation or silo gone while
/// it decided). The transaction may have committed or aborted; it is never half done. Where it
/// committed, every later transaction sees its writes; where not, none does. Read the actors to
/// find out, or make the transaction idempotent and run it again.
/// </summary>
[GenerateSerializer]
public sealed class TransactionInDoubtException : Exception
{
    /// <summary>Creates the exception with a message saying why the outcome is unknown.</summary>
    public TransactionInDoubtException(long tid, string message)
        : this(tid, message, null)
    {
    }

    /// <summary>Creates the exception with a message and the failure that hid the outcome.</summary>
    public TransactionInDoubtException(long tid, string message, Exception? innerException)
        : base(message, innerException)
    {
        Tid = tid;
        detail = message;
    }

    /// <summary>The transaction whose outcome is unknown.</summary>
    [Id(0)]
    public long Tid { get; }

    /// <summary>The message without the tid prefix that <see cref="Message"/> adds.</summary>
    public string Detail => detail;

    /// <inheritdoc />
    public override string Message => $"[InDoubt] transaction {Tid}: {detail}";

    // Kept apart from Exception.Message, which a serializer fills with the formatted message.
    [Id(1)]
    private readonly string detail;
}

namespace Snapper;

/// <summary>
/// Thrown to the caller of a transaction whose outcome its root could not learn: a commit answer
/// was lost or came too late (a response timeout, a participant's activation or silo gone while
/// it decided). The transaction may have committed or aborted; it is never half done. Where it
/// committed, every later transaction sees its writes; where not, none does. Read the actors to
/// find out, or make the transaction idempotent and run it again.
/// </summary>
[GenerateSerializer]
public sealed class TransactionInDoubtException : TransactionException
{
    /// <summary>Creates the exception with a message saying why the outcome is unknown.</summary>
    public TransactionInDoubtException(long tid, string message)
        : this(tid, message, null)
    {
    }

    /// <summary>Creates the exception with a message and the failure that hid the outcome.</summary>
    public TransactionInDoubtException(long tid, string message, Exception? innerException)
        : base(tid, message, innerException)
    {
    }

    /// <inheritdoc />
    public override string Message => $"[InDoubt] transaction {Tid}: {Detail}";
}

namespace Snapper;

/// <summary>
/// What a transaction's caller is told when it did not learn a commit: either it was rolled back
/// (<see cref="TransactionAbortedException"/>) or its outcome is unknown
/// (<see cref="TransactionInDoubtException"/>). Catch this type to handle both in one place, as
/// Orleans' own transactions offer with <c>OrleansTransactionException</c>.
/// </summary>
[GenerateSerializer]
public abstract class TransactionException : Exception
{
    private protected TransactionException(long tid, string message, Exception? innerException)
        : base(message, innerException)
    {
        Tid = tid;
        detail = message;
    }

    /// <summary>The transaction's id, when the runtime knows it (0 otherwise).</summary>
    [Id(0)]
    public long Tid { get; init; }

    /// <summary>The message without the prefix that <see cref="Exception.Message"/> adds.</summary>
    public string Detail => detail;

    // Kept apart from Exception.Message, which a serializer fills with the formatted message.
    [Id(1)]
    private readonly string detail;
}

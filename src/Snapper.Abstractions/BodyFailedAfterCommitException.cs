namespace Snapper;

/// <summary>
/// Thrown to the caller of <c>RunAct</c> or <c>RunPact</c> whose transaction committed, when its
/// body threw after its call had answered (a body's call to its first actor answers only once the
/// transaction has committed): the body's own exception is the
/// <see cref="Exception.InnerException"/>, and the transaction's writes stand. Not a
/// <see cref="TransactionException"/>: the transaction did not abort and is not in doubt, so it is
/// not run again, whatever the body threw (another transaction's abort, say).
/// </summary>
[GenerateSerializer]
public sealed class BodyFailedAfterCommitException : Exception
{
    /// <summary>Wraps what the body of committed transaction <paramref name="tid"/> threw.</summary>
    public BodyFailedAfterCommitException(long tid, Exception innerException)
        : base($"transaction {tid} committed, then its body threw {innerException?.GetType().Name}: {innerException?.Message}", innerException) => Tid = tid;

    /// <summary>The id of the transaction that committed.</summary>
    [Id(0)]
    public long Tid { get; init; }
}

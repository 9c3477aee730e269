namespace Snapper;

/// <summary>
/// Starts transactions, from outside the actors or from inside one (inject it). The first actor
/// runs <c>body</c> and coordinates the commit; the caller gets the result only after commit.
/// </summary>
public interface ISnapperClient
{
    /// <summary>
    /// Runs an ACT that starts on actor <paramref name="first"/> and commits it.
    /// Throws <see cref="TransactionAbortedException"/> if it was rolled back.
    /// </summary>
    /// <remarks>
    /// The body's call to <paramref name="first"/> answers only once the ACT has committed or
    /// aborted. If the body throws after that call answered, the ACT has committed: the caller gets
    /// <see cref="BodyFailedAfterCommitException"/> with the body's exception inside, whatever it
    /// was (a <see cref="TransactionException"/> of another transaction too), and nothing is run
    /// again. A <see cref="TransactionException"/> from this method always speaks of this ACT.
    /// </remarks>
    Task<TResult> RunAct<TActor, TResult>(ActorId first, Func<TActor, TxnContext, Task<TResult>> body, CancellationToken cancellationToken = default)
        where TActor : ITransactionalActor;

    /// <summary>Runs an ACT with no result. See <see cref="RunAct{TActor, TResult}(ActorId, Func{TActor, TxnContext, Task{TResult}}, CancellationToken)"/>.</summary>
    Task RunAct<TActor>(ActorId first, Func<TActor, TxnContext, Task> body, CancellationToken cancellationToken = default)
        where TActor : ITransactionalActor;

    /// <summary>Runs an ACT with per-transaction <paramref name="options"/>. See <see cref="RunAct{TActor, TResult}(ActorId, Func{TActor, TxnContext, Task{TResult}}, CancellationToken)"/>.</summary>
    Task<TResult> RunAct<TActor, TResult>(ActorId first, Func<TActor, TxnContext, Task<TResult>> body, ActOptions options, CancellationToken cancellationToken = default)
        where TActor : ITransactionalActor;

    /// <summary>
    /// Runs a PACT that starts on actor <paramref name="first"/>: <paramref name="declared"/> names
    /// every actor it calls and how many times (the first actor's own call counts). PACTs are
    /// ordered into batches by the coordinator ring and never abort for concurrency reasons; they
    /// abort if user code throws, with <see cref="AbortReason.DeclarationError"/> if they do not
    /// call exactly as declared, or with <see cref="AbortReason.Cascading"/> when an earlier
    /// uncommitted batch aborted.
    /// </summary>
    /// <remarks>
    /// The body's call to <paramref name="first"/> answers only once the PACT has committed or
    /// aborted. If the body throws after that call answered, the PACT has committed: the caller gets
    /// <see cref="BodyFailedAfterCommitException"/> with the body's exception inside, whatever it
    /// was (a <see cref="TransactionAbortedException"/> of its own or of another transaction too),
    /// and it is not run again, whatever <c>MaxPactAttempts</c> says. A
    /// <see cref="TransactionException"/> from this method always speaks of this PACT.
    /// </remarks>
    Task<TResult> RunPact<TActor, TResult>(ActorId first, Func<TActor, TxnContext, Task<TResult>> body, AccessSet declared, CancellationToken cancellationToken = default)
        where TActor : ITransactionalActor;

    /// <summary>Runs a PACT with no result. See <see cref="RunPact{TActor, TResult}"/>.</summary>
    Task RunPact<TActor>(ActorId first, Func<TActor, TxnContext, Task> body, AccessSet declared, CancellationToken cancellationToken = default)
        where TActor : ITransactionalActor;
}

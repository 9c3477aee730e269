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
    Task<TResult> RunAct<TActor, TResult>(ActorId first, Func<TActor, TxnContext, Task<TResult>> body, CancellationToken cancellationToken = default)
        where TActor : ITransactionalActor;

    /// <summary>Runs an ACT with no result. See <see cref="RunAct{TActor, TResult}"/>.</summary>
    Task RunAct<TActor>(ActorId first, Func<TActor, TxnContext, Task> body, CancellationToken cancellationToken = default)
        where TActor : ITransactionalActor;

    /// <summary>
    /// Calls a plain (non-transactional) actor method: the baseline that transactions are measured
    /// against. The call runs in the actor's turn, like an ordinary Orleans grain call.
    /// </summary>
    Task<TResult> Call<TActor, TResult>(ActorId actor, Func<TActor, Task<TResult>> call)
        where TActor : IActor;
}

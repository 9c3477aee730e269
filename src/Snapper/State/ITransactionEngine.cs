namespace Snapper.State;

/// <summary>
/// What user code inside a transaction reaches through <see cref="TransactionalActor{TState}"/>: the
/// actor's state and other actors. Both engines offer it (ACTs: <c>Act/ActParticipant</c>; PACTs:
/// <c>Pact/PactParticipant</c>); the actor picks one by the context's mode, in one place.
/// </summary>
internal interface ITransactionEngine<TState>
    where TState : class
{
    /// <summary>The state for <paramref name="ctx"/>'s transaction, read-only or its own copy to write.</summary>
    ValueTask<TState> GetState(TxnContext ctx, AccessMode mode);

    /// <summary>
    /// Registers an action to run once <paramref name="ctx"/>'s transaction has committed
    /// (<c>TransactionalActor.AfterCommit</c>): it goes with the transaction to its decider, which
    /// logs it with the decision.
    /// </summary>
    void AfterCommit(TxnContext ctx, object message);

    /// <summary>
    /// Calls another actor within <paramref name="ctx"/>'s transaction. One method serves calls with
    /// and without a result: a <c>Func&lt;TActor, Task&lt;TResult&gt;&gt;</c> is a
    /// <c>Func&lt;TActor, Task&gt;</c>, and <see cref="CallAnswers.ResultOf{TResult}"/> reads the
    /// result back (default for a call without one), so neither form pays an adapter.
    /// </summary>
    Task<TResult> CallActor<TActor, TResult>(TxnContext ctx, ActorId target, Func<TActor, Task> call)
        where TActor : ITransactionalActor;
}

namespace Snapper.Pact;

/// <summary>What the PACT protocol asks of a transactional actor; every member runs in the actor's turn.</summary>
internal interface IPactParticipant
{
    /// <summary>Client → first actor, once the coordinator placed the PACT in a batch: run it, return its result after BatchCommit.</summary>
    Task<TResult> RunPactAsRoot<TActor, TResult>(TxnContext ctx, Func<TActor, TxnContext, Task<TResult>> body);

    /// <summary>Caller actor → callee (CallActor) within a PACT: runs in the PACT's turn of the callee's local schedule.</summary>
    Task<TResult> InvokePact<TActor, TResult>(TxnContext ctx, Func<TActor, Task<TResult>> call);

    /// <summary>BatchMsg, coordinator → actor, one-way.</summary>
    void OnBatch(SubBatch batch);

    /// <summary>BatchCommit, coordinator → actor, one-way, after the coordinator's BatchCommit record is durable.</summary>
    void OnBatchCommit(long bid);

    /// <summary>
    /// Abort cascade, ring → actor: apply every batch up to <paramref name="committedThrough"/>
    /// (committed, even if its BatchCommit has not arrived yet), then drop every other batch up to
    /// <paramref name="abortedThrough"/> and return to the committed state.
    /// </summary>
    void OnAbort(long abortedThrough, long committedThrough, IReadOnlyDictionary<long, Exception> failures);

    /// <summary>Declaration deadline, coordinator → actor: what batch <paramref name="bid"/> waits for here.</summary>
    (long Tid, string Description) DescribeWait(long bid);
}

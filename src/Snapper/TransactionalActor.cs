using Snapper.Act;
using Snapper.Actors;
using Snapper.Hybrid;
using Snapper.Pact;
using Snapper.State;

namespace Snapper;

/// <summary>
/// The base class of a transactional actor (Snapper §3.2.2). Its state of type
/// <typeparamref name="TState"/> is read and written only through <see cref="GetState"/>; other
/// actors are called only through <see cref="CallActor{TActor, TResult}"/>. Snapper locks, copies,
/// logs and commits; user code writes no Clone() and no commit logic.
/// </summary>
/// <typeparam name="TState">
/// A class with a parameterless constructor that the registered state serializer can round-trip:
/// by default Orleans' serializer, so a <c>[GenerateSerializer]</c> class with <c>[Id]</c> members.
/// </typeparam>
public abstract class TransactionalActor<TState> : ITransactionalActor, IActorBinding, IActParticipant, IPactParticipant
    where TState : class, new()
{
    private ActParticipant<TState>? engine;
    private PactParticipant<TState>? pact;

    /// <summary>This actor's id. Valid from the actor's first call on (not in its constructor).</summary>
    protected ActorId Id => Engine.Id;

    internal ActParticipant<TState> Engine =>
        engine ?? throw new SnapperException($"{GetType().Name} is not activated yet: Id and the transactional API are available from its first call on, not in its constructor.");

    internal PactParticipant<TState> PactEngine => pact ?? throw new SnapperException($"{GetType().Name} is not activated yet.");

    /// <summary>
    /// Returns the state for <paramref name="ctx"/>'s transaction, taking a read or write lock
    /// (strict 2PL with wait-die). <see cref="AccessMode.ReadWrite"/> returns the transaction's own
    /// copy, which becomes the committed state if the transaction commits; <see cref="AccessMode.Read"/>
    /// returns the committed state, which must not be modified.
    /// </summary>
    protected ValueTask<TState> GetState(TxnContext ctx, AccessMode mode)
    {
        ArgumentNullException.ThrowIfNull(ctx);
        return ctx.Mode == TxnMode.Pact ? new ValueTask<TState>(PactEngine.GetState(ctx, mode)) : Engine.GetState(ctx, mode);
    }

    /// <summary>Calls another transactional actor within <paramref name="ctx"/>'s transaction.</summary>
    protected Task<TResult> CallActor<TActor, TResult>(TxnContext ctx, ActorId actor, Func<TActor, Task<TResult>> call)
        where TActor : ITransactionalActor
    {
        ArgumentNullException.ThrowIfNull(ctx);
        return ctx.Mode == TxnMode.Pact ? PactEngine.CallActor(ctx, actor, call) : Engine.CallActor(ctx, actor, call);
    }

    /// <summary>Calls another transactional actor within <paramref name="ctx"/>'s transaction.</summary>
    protected Task CallActor<TActor>(TxnContext ctx, ActorId actor, Func<TActor, Task> call)
        where TActor : ITransactionalActor
        => CallActor<TActor, bool>(ctx, actor, async a =>
        {
            await call(a);
            return true;
        });

    /// <summary>The state a new actor starts with; by default <c>new TState()</c>.</summary>
    protected virtual TState CreateInitialState() => new();

    void IActorBinding.Bind(ActorId id, SnapperRuntime runtime)
    {
        // One local schedule and one set of state versions, shared by the two engines (§4.4.1).
        var versions = StateVersions<TState>.Load(id, runtime, CreateInitialState());
        var schedule = new LocalSchedule(id);
        engine = new ActParticipant<TState>(id, runtime, versions, schedule, this);
        pact = new PactParticipant<TState>(id, runtime, versions, schedule, this);
    }

    Task<TResult> IActParticipant.RunAsRoot<TActor, TResult>(Func<TActor, TxnContext, Task<TResult>> body, bool earlyLockRelease, CancellationToken cancellationToken) =>
        Engine.RunAsRoot(body, earlyLockRelease, cancellationToken);

    Task<(TResult Result, ExecutionInfo Info)> IActParticipant.Invoke<TActor, TResult>(TxnContext ctx, Func<TActor, Task<TResult>> call) =>
        Engine.Invoke(ctx, call);

    Task<Vote> IActParticipant.Prepare(long tid, HybridDecision decision, bool earlyLockRelease) => Engine.Prepare(tid, decision, earlyLockRelease);

    Task IActParticipant.Commit(long tid, HybridDecision decision) => Engine.Commit(tid, decision);

    Task IActParticipant.CommitOnePhase(long tid, HybridDecision decision) => Engine.CommitOnePhase(tid, decision);

    Task IActParticipant.Abort(long tid) => Engine.Abort(tid);

    Task<TResult> IPactParticipant.RunPactAsRoot<TActor, TResult>(TxnContext ctx, Func<TActor, TxnContext, Task<TResult>> body) => PactEngine.RunPactAsRoot(ctx, body);

    Task<TResult> IPactParticipant.InvokePact<TActor, TResult>(TxnContext ctx, Func<TActor, Task<TResult>> call) => PactEngine.InvokePact(ctx, call);

    void IPactParticipant.OnBatch(SubBatch batch) => PactEngine.OnBatch(batch);

    void IPactParticipant.OnBatchCommit(long bid) => PactEngine.OnBatchCommit(bid);

    void IPactParticipant.OnAbort(long abortedThrough, long committedThrough, IReadOnlyDictionary<long, Exception> failures) =>
        PactEngine.OnAbort(abortedThrough, committedThrough, failures);

    (long Tid, string Description) IPactParticipant.DescribeWait(long bid) => PactEngine.DescribeWait(bid);
}

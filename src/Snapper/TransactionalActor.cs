using Microsoft.Extensions.DependencyInjection;
using Orleans.Concurrency;
using Snapper.Act;
using Snapper.Grains;
using Snapper.Pact;
using Snapper.Protocol;
using Snapper.Reconnaissance;

namespace Snapper;

/// <summary>
/// The base class of a transactional actor (Snapper §3.2.2): an Orleans grain whose state of type
/// <typeparamref name="TState"/> is read and written only through <see cref="GetState"/>; other
/// actors are called only through <see cref="CallActor{TActor, TResult}"/>. Snapper locks, copies,
/// logs and commits; user code writes no Clone() and no commit logic.
/// </summary>
/// <typeparam name="TState">
/// A class with a parameterless constructor that the registered state serializer can round-trip:
/// by default Orleans' serializer, so a <c>[GenerateSerializer]</c> class with <c>[Id]</c> members.
/// </typeparam>
/// <remarks>
/// <para>Reentrant on purpose (docs/architecture.md): a call waiting for a lock or for its turn in
/// the local schedule must not stop the messages that end that wait (Commit, Abort, BatchMsg,
/// BatchCommit) from reaching the actor. Snapper's own lock and local schedule, not Orleans' turn
/// taking, serialize access to the state; calls still never run in parallel, only interleave at
/// awaits.</para>
/// <para>A transactional method takes the <see cref="TxnContext"/> as its first parameter. This
/// class's call filter sees it there and runs the call as a participant of that transaction (or,
/// for the call that starts it, as its root); the callee's execution info rides back to the caller
/// inside the response.</para>
/// </remarks>
[Reentrant]
[Orleans.Placement.RandomPlacement]
public abstract class TransactionalActor<TState> : Grain, ITransactionalActor, ISnapperParticipant, IIncomingGrainCallFilter, IDeactivating
    where TState : class, new()
{
    private ActorEngines<TState>? engines;
    private TimeProvider clock = TimeProvider.System;
    private IGrainTimer? expiryTimer;
    private IGrainTimer? holdTimer; // runs while the activation is held for undecided transactions
    private DateTimeOffset retainedUntil; // early lock release: outcomes answered until then

    /// <summary>This actor's id. Valid from activation on (not in its constructor).</summary>
    protected ActorId Id => ActParticipant.Id;

    /// <summary>The ACT engine of this actor (its 2PL participant and, through it, the root of its ACTs).</summary>
    internal ActParticipant<TState> ActParticipant => Engines.Act;

    /// <summary>The PACT engine of this actor.</summary>
    internal PactParticipant<TState> PactParticipant => Engines.Pact;

    /// <summary>The reconnaissance engine of this actor.</summary>
    internal ReconnaissanceParticipant<TState> Reconnaissance => Engines.Reconnaissance;

    private ActorEngines<TState> Engines =>
        engines ?? throw new SnapperException($"{GetType().Name} is not activated yet: Id and the transactional API are available from activation on, not in its constructor.");

    /// <summary>
    /// Returns the state for <paramref name="ctx"/>'s transaction, taking a read or write lock
    /// (strict 2PL with wait-die). <see cref="AccessMode.ReadWrite"/> returns the transaction's own
    /// copy, which becomes the committed state if the transaction commits; <see cref="AccessMode.Read"/>
    /// returns the committed state, which must not be modified.
    /// </summary>
    protected ValueTask<TState> GetState(TxnContext ctx, AccessMode mode)
    {
        return Engines.For(ctx).GetState(ctx, mode);
    }

    /// <summary>
    /// Registers <paramref name="message"/> to be handed to its <see cref="IAfterCommitHandler{TMessage}"/>
    /// once <paramref name="ctx"/>'s transaction has committed, at least once and never if it
    /// aborts (the transactional outbox). It is logged with the transaction's decision, so a crash
    /// after the commit delays it but does not lose it; a handler drops repeats by
    /// <see cref="AfterCommitContext.Id"/>.
    /// </summary>
    /// <param name="ctx">The running transaction (an ACT or a PACT, in any mode).</param>
    /// <param name="message">An Orleans-serializable message (<c>[GenerateSerializer]</c>) whose type has a handler
    /// registered with <c>AddAfterCommitHandler</c>; else this throws, and the transaction aborts
    /// unless the body catches it.</param>
    protected void AfterCommit(TxnContext ctx, object message)
    {
        ArgumentNullException.ThrowIfNull(message);
        Engines.For(ctx).AfterCommit(ctx, message);
    }

    /// <summary>Calls another transactional actor within <paramref name="ctx"/>'s transaction.</summary>
    protected Task<TResult> CallActor<TActor, TResult>(TxnContext ctx, ActorId actor, Func<TActor, Task<TResult>> call)
        where TActor : ITransactionalActor
    {
        return Engines.For(ctx).CallActor<TActor, TResult>(ctx, actor, call);
    }

    /// <summary>Calls another transactional actor within <paramref name="ctx"/>'s transaction.</summary>
    protected Task CallActor<TActor>(TxnContext ctx, ActorId actor, Func<TActor, Task> call)
        where TActor : ITransactionalActor
    {
        return Engines.For(ctx).CallActor<TActor, object?>(ctx, actor, call);
    }

    /// <summary>The state a new actor starts with; by default <c>new TState()</c>.</summary>
    protected virtual TState CreateInitialState() => new();

    /// <inheritdoc />
    public override async Task OnActivateAsync(CancellationToken cancellationToken)
    {
        // Activation must not complete synchronously. Orleans 10.4.2 starts an activation's message
        // loop inside a lock on the activation (ActivationData.Start); when activation completes
        // synchronously, the first request runs under that lock up to its first await, and if it
        // calls another actor that is starting the same way and calls back, the two activations
        // deadlock on each other's lock (seen with concurrent ACTs right after a silo starts). A
        // yield here lets Start return, so requests always run outside it.
        await Task.Yield();
        if (ServiceProvider.GetService<ActiveActors>() is null)
        {
            throw new SnapperException($"{GetType().Name} is a transactional actor, but Snapper is not added to this silo: call AddSnapper() on the silo builder.");
        }

        clock = ServiceProvider.GetRequiredService<TimeProvider>(); // before Start: it may call Retain
        engines = await ActorEngines<TState>.Start(ServiceProvider, ActorIdentity.Of(this), CreateInitialState(), this, EnsureExpiry, Retain, this);
        await base.OnActivateAsync(cancellationToken);
    }

    /// <inheritdoc />
    public override async Task OnDeactivateAsync(DeactivationReason reason, CancellationToken cancellationToken)
    {
        if (engines is not null)
        {
            await engines.HandOver(cancellationToken);
        }

        await base.OnDeactivateAsync(reason, cancellationToken);
    }

    // Orleans has started to deactivate this activation: it takes no message until the calls running
    // here return, so the calls that wait here for one end now (DeactivationSignal).
    void IDeactivating.Deactivating() => engines?.Leave();

    Task IIncomingGrainCallFilter.Invoke(IIncomingGrainCallContext context)
    {
        HoldForTransactions();
        // Every call starts outside any CallActor and incoming ACT call, whatever flow the
        // activation was started from.
        ExecutionInfoSink.Value = null;
        CallScope.Current = null;
        return context.Request.GetArgumentCount() > 0 && context.Request.GetArgument(0) is TxnContext ctx
            ? Engines.Invoke(context, ctx)
            : context.Invoke(); // not transactional: a protocol message, or a plain method
    }

    Task<Vote> ISnapperParticipant.Prepare(long tid, HybridDecision decision, bool earlyLockRelease) => ActParticipant.Prepare(tid, decision, earlyLockRelease);

    Task ISnapperParticipant.Commit(long tid, HybridDecision decision) => ActParticipant.Commit(tid, decision);

    Task ISnapperParticipant.CommitOnePhase(long tid, HybridDecision decision) => ActParticipant.CommitOnePhase(tid, decision);

    Task ISnapperParticipant.Abort(long tid) => ActParticipant.Abort(tid);

    Task ISnapperParticipant.AbortUnanswered(long tid) => ActParticipant.AbortUnanswered(tid);

    Task ISnapperParticipant.OnBatch(SubBatch batch)
    {
        PactParticipant.OnBatch(batch);
        return Task.CompletedTask;
    }

    Task ISnapperParticipant.OnAbort(long bid, long through, Dictionary<long, Exception> failures, AbortReason cascade)
    {
        PactParticipant.OnAbort(bid, through, failures, cascade);
        return Task.CompletedTask;
    }

    Task<PactAbortAnswer> ISnapperParticipant.AbortPact(long bid, long tid, Exception cause) => PactParticipant.AbortPact(bid, tid, cause);

    Task<LateCallAnswer> ISnapperParticipant.PactCallAnswer(long bid, long tid, GrainId caller, string? refuseAheadFor) => Task.FromResult(PactParticipant.AnswerOf(bid, tid, caller, refuseAheadFor));

    Task ISnapperParticipant.ReleasePact(long bid, long tid)
    {
        PactParticipant.Schedule.Release(bid, tid);
        return Task.CompletedTask;
    }

    Task ISnapperParticipant.EndReconnaissance(Guid run)
    {
        Engines.Reconnaissance.End(run);
        return Task.CompletedTask;
    }

    Task<TransactionAbortedException?> ISnapperParticipant.AwaitPact(long tid, long bid, string coordinator) => PactParticipant.AwaitOutcome(tid, bid, coordinator);

    Task<(long Tid, string Description)> ISnapperParticipant.DescribeWait(long bid) => Task.FromResult(PactParticipant.DescribeWait(bid));

    Task ISnapperParticipant.BatchBehind(long tid, long bid, ActorId at)
    {
        ActParticipant.Root.OnBatchBehind(tid, bid, at);
        return Task.CompletedTask;
    }

    Task ISnapperParticipant.LockWait(long tid, ActDependency holder, bool waiting)
    {
        ActParticipant.Root.OnLockWait(tid, holder, waiting);
        return Task.CompletedTask;
    }

    Task ISnapperParticipant.WatchBatch(long tid, long bid, ActorId participant)
    {
        ActParticipant.Root.OnWatchBatch(tid, bid, participant);
        return Task.CompletedTask;
    }

    Task ISnapperParticipant.BatchWaitDoomed(long tid, long behind, ActorId at)
    {
        ActParticipant.OnBatchWaitDoomed(tid, behind, at);
        return Task.CompletedTask;
    }

    Task ISnapperParticipant.ActDoomed(long tid, ActorId at, AbortReason reason)
    {
        ActParticipant.OnDoomed(tid, at, reason);
        return Task.CompletedTask;
    }

    Task ISnapperParticipant.StopWaiting(long tid, ActorId going, TxnMode mode)
    {
        if (mode == TxnMode.Pact)
        {
            PactParticipant.OnStopWaiting(tid, going);
        }
        else
        {
            ActParticipant.OnStopWaiting(tid, going);
        }

        return Task.CompletedTask;
    }

    Task<bool> ISnapperParticipant.ActOutcome(long tid, bool durable) => ActParticipant.Root.ActOutcome(tid, durable);

    Task ISnapperParticipant.Settle(SettleStep step, DateTimeOffset until) => ActParticipant.Settle(step, until);

    async Task ISnapperParticipant.ResolveDeparted(string silo)
    {
        ActParticipant.AskRootsOfUndecided();
        await PactParticipant.ResolveDeparted(silo);
    }

    // Orleans collects an activation that received no call for a while (or every idle one, when
    // asked to). One that takes part in an undecided transaction (an ACT's record or lock, a batch it
    // received or completed but that has not committed) must stay: a new activation would start from
    // the committed state and know nothing of it, so the transaction's Commit or BatchCommit would
    // find no one and the batches after it would wait for ever. Any call may start such a part, so
    // each one holds the activation (DelayDeactivation without end); a timer lets it go once nothing
    // is undecided here, so an idle actor is still collected, a little later.
    private void HoldForTransactions()
    {
        if (holdTimer is null && engines is not null)
        {
            DelayDeactivation(TimeSpan.MaxValue);
            var period = engines.Options.TransactionTimeout / 4;
            holdTimer = this.RegisterGrainTimer(ReleaseWhenDecided, period, period);
        }
    }

    private Task ReleaseWhenDecided()
    {
        if (engines is null || engines.Undecided)
        {
            return Task.CompletedTask;
        }

        holdTimer?.Dispose();
        holdTimer = null;
        var retained = retainedUntil - clock.GetUtcNow();
        DelayDeactivation(retained > TimeSpan.Zero ? retained : TimeSpan.Zero); // zero: collected as usual again
        return Task.CompletedTask;
    }

    // An ACT that released its locks early is asked about by its dependents for a while after it ends.
    private void Retain(TimeSpan retention)
    {
        retainedUntil = clock.GetUtcNow() + retention;
        if (holdTimer is null)
        {
            DelayDeactivation(retention);
        }
    }

    // While the ACT act has records, a timer gives up those whose transaction is past its
    // deadline without having prepared (their root will never decide them).
    private void EnsureExpiry()
    {
        if (expiryTimer is null)
        {
            var period = Engines.Options.TransactionTimeout / 4;
            expiryTimer = this.RegisterGrainTimer(ExpireRecords, period, period);
        }
    }

    private Task ExpireRecords()
    {
        if (ActParticipant.ExpireRecords(clock.GetUtcNow()) == 0)
        {
            expiryTimer?.Dispose();
            expiryTimer = null;
        }

        return Task.CompletedTask;
    }
}

using System.Collections.Concurrent;
using System.Globalization;
using Microsoft.Extensions.DependencyInjection;
using Orleans.Concurrency;
using Orleans.Serialization.Invocation;
using Snapper.Act;
using Snapper.Grains;
using Snapper.Pact;
using Snapper.Recovery;
using Snapper.State;
using Snapper.Protocol;
using Snapper.Scheduling;

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
    private static readonly ConcurrentDictionary<Type, Type> ActorInterfaces = new();
    private ActServices? actServices;
    private ActivationLoader? loader;
    private ActiveActors? activeActors;
    private ActParticipant<TState>? act;
    private PactParticipant<TState>? pact;
    private IGrainTimer? expiryTimer;
    private IGrainTimer? holdTimer; // runs while the activation is held for undecided transactions
    private DateTimeOffset retainedUntil; // early lock release: outcomes answered until then

    /// <summary>This actor's id. Valid from activation on (not in its constructor).</summary>
    protected ActorId Id => ActParticipant.Id;

    /// <summary>The ACT engine of this actor (its 2PL participant and, through it, the root of its ACTs).</summary>
    internal ActParticipant<TState> ActParticipant =>
        act ?? throw new SnapperException($"{GetType().Name} is not activated yet: Id and the transactional API are available from activation on, not in its constructor.");

    /// <summary>The PACT engine of this actor.</summary>
    internal PactParticipant<TState> PactParticipant => pact ?? throw new SnapperException($"{GetType().Name} is not activated yet.");

    /// <summary>
    /// Returns the state for <paramref name="ctx"/>'s transaction, taking a read or write lock
    /// (strict 2PL with wait-die). <see cref="AccessMode.ReadWrite"/> returns the transaction's own
    /// copy, which becomes the committed state if the transaction commits; <see cref="AccessMode.Read"/>
    /// returns the committed state, which must not be modified.
    /// </summary>
    protected ValueTask<TState> GetState(TxnContext ctx, AccessMode mode)
    {
        return EngineFor(ctx).GetState(ctx, mode);
    }

    /// <summary>Calls another transactional actor within <paramref name="ctx"/>'s transaction.</summary>
    protected Task<TResult> CallActor<TActor, TResult>(TxnContext ctx, ActorId actor, Func<TActor, Task<TResult>> call)
        where TActor : ITransactionalActor
    {
        return EngineFor(ctx).CallActor(ctx, actor, call);
    }

    /// <summary>Calls another transactional actor within <paramref name="ctx"/>'s transaction.</summary>
    protected Task CallActor<TActor>(TxnContext ctx, ActorId actor, Func<TActor, Task> call)
        where TActor : ITransactionalActor
    {
        return EngineFor(ctx).CallActor(ctx, actor, call);
    }

    // The engine the transaction runs in: the PACT engine for a PACT, else the ACT engine.
    private ITransactionEngine<TState> EngineFor(TxnContext ctx)
    {
        ArgumentNullException.ThrowIfNull(ctx);
        return ctx.Mode == TxnMode.Pact ? PactParticipant : ActParticipant;
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
        activeActors = ServiceProvider.GetService<ActiveActors>()
            ?? throw new SnapperException($"{GetType().Name} is a transactional actor, but Snapper is not added to this silo: call AddSnapper() on the silo builder.");
        actServices = ServiceProvider.GetRequiredService<ActServices>();
        var pactServices = ServiceProvider.GetRequiredService<PactServices>();
        loader = ServiceProvider.GetRequiredService<ActivationLoader>();
        var id = SelfId();

        // One local schedule and one set of state versions, shared by the two engines (§4.4.1).
        var (handedOver, committed, undecided) = await loader.Load(id);
        var versions = StateVersions<TState>.Load(id, actServices.Serializer, CreateInitialState(), committed);
        var schedule = new LocalSchedule(id, actServices.Clock);
        act = new ActParticipant<TState>(id, actServices, versions, schedule);
        act.Attach(EnsureExpiry, Retain, this);
        act.AdoptUndecided([.. undecided, .. PreparedBefore(id, handedOver, undecided)]);
        if (handedOver is { Outcomes.IsDefaultOrEmpty: false } kept)
        {
            act.Roots.Adopt(kept.Outcomes);
            Retain(act.Roots.Retention);
        }

        pact = new PactParticipant<TState>(id, pactServices, versions, schedule);
        if (handedOver?.Batches is { } batches && handedOver.Value.Version == versions.CommittedVersion)
        {
            pact.Resume(batches); // on the committed state they were built on
        }

        activeActors.Add(id, this);
        await base.OnActivateAsync(cancellationToken);
    }

    /// <inheritdoc />
    public override Task OnDeactivateAsync(DeactivationReason reason, CancellationToken cancellationToken)
    {
        if (act is not null && loader is not null && actServices is not null)
        {
            // Leave the committed state on this silo: the next activation, here or on another
            // silo, takes it (ActivationLoader) instead of an older one from the logs.
            // The writes prepared here for ACTs not decided yet go along: a deactivation does not
            // wait for an ACT's Commit (DelayDeactivation holds off only idle collection).
            var versions = act.Versions;
            loader.Leave(act.Id, new CommittedState(versions.CommittedVersion, actServices.Serializer.Serialize(versions.Committed))
            {
                Undecided = act.HandOver(),
                Batches = pact?.HandOver(),
                Outcomes = act.Roots.HandOver(),
            });
            activeActors?.Remove(act.Id, this);
        }

        return base.OnDeactivateAsync(reason, cancellationToken);
    }

    // The writes an earlier activation prepared and handed over, not already among the failover's.
    private static IEnumerable<Logging.PrepareRecord> PreparedBefore(ActorId id, CommittedState? handedOver, IReadOnlyList<Logging.PrepareRecord> fromFailover) =>
        handedOver is { Undecided.IsDefaultOrEmpty: false } state
            ? state.Undecided.Where(w => w.Version > state.Version && !fromFailover.Any(f => f.Tid == w.Tid))
                .Select(w => new Logging.PrepareRecord(w.Tid, id, w.Root, w.State) { Version = w.Version, Delta = w.Delta })
            : [];

    // Orleans has started to deactivate this activation: it takes no message until the calls running
    // here return, so the calls that wait here for one end now (DeactivationSignal).
    void IDeactivating.Deactivating()
    {
        act?.Leave();
        pact?.Leave();
    }

    Task IIncomingGrainCallFilter.Invoke(IIncomingGrainCallContext context)
    {
        HoldForTransactions();
        // Every call starts outside any CallActor and incoming ACT call, whatever flow the
        // activation was started from.
        ExecutionInfoSink.Value = null;
        CallScope.Current = null;
        return context.Request.GetArgumentCount() > 0 && context.Request.GetArgument(0) is TxnContext ctx
            ? InvokeTransactional(context, ctx)
            : context.Invoke(); // not transactional: a protocol message, or a plain method
    }

    private async Task InvokeTransactional(IIncomingGrainCallContext context, TxnContext ctx)
    {
        if (!ActParticipant.WhenUndecidedSettled.IsCompleted)
        {
            // Activated after its silo died, with writes it prepared there still undecided: no
            // transaction may see this state until their roots have said how they ended.
            await ActParticipant.WhenUndecidedSettled;
        }

        if (ctx.Start)
        {
            if (ctx.Root != ActParticipant.Id)
            {
                throw new SnapperException($"The transaction {ctx} was started on actor {ctx.Root}, but its first call reached {ActParticipant.Id}: a RunAct or RunPact body must call the first actor it names.");
            }

            // User code and every call it makes get the context without the start mark.
            var running = ctx with { Start = false, EarlyLockRelease = false, RootSilo = ctx.EarlyLockRelease ? actServices!.ActOutcomes.Silo : null };
            context.Request.SetArgument(0, running);
            if (ctx.Mode == TxnMode.Pact)
            {
                if (await PactParticipant.RunPactAsRoot(running, context.Invoke))
                {
                    // Ran, but this activation is going before the batch was decided: the caller's
                    // filter asks the next activation for the outcome.
                    context.Response = PendingPactResponse.Create(context.Response!, running.Tid, running.Bid, running.Coordinator!, ActParticipant.Id);
                }
            }
            else if (await ActParticipant.Root.RunAsRoot(running, ctx.EarlyLockRelease, context.Invoke) is { } aborted)
            {
                // An abort, or a TransactionInDoubtException where the outcome could not be learned.
                // Answered, not thrown. For a method with a result, wrapped: it passes Orleans'
                // invokers on both sides as a value and is thrown once, where the caller reads the
                // result (by Orleans even for a caller without Snapper's filter). Without a result
                // the caller reads none, so Orleans must throw it as the response arrives.
                var failed = Response.FromException(aborted);
                context.Response = ExecutionInfoResponse.ReadsResult(context) ? ExecutionInfoResponse.Create(failed, new ExecutionInfo()) : failed;
            }

            return;
        }

        if (ctx.Mode == TxnMode.Pact)
        {
            await PactParticipant.InvokePact(ctx, context.Invoke);
            return;
        }

        var (info, failure) = await ActParticipant.Invoke(ctx, context.Invoke);
        context.Response = ExecutionInfoResponse.Create(failure is null ? context.Response! : Response.FromException(failure), info);
    }

    Task<Vote> ISnapperParticipant.Prepare(long tid, HybridDecision decision, bool earlyLockRelease) => ActParticipant.Prepare(tid, decision, earlyLockRelease);

    Task ISnapperParticipant.Commit(long tid, HybridDecision decision) => ActParticipant.Commit(tid, decision);

    Task ISnapperParticipant.CommitOnePhase(long tid, HybridDecision decision) => ActParticipant.CommitOnePhase(tid, decision);

    Task ISnapperParticipant.Abort(long tid) => ActParticipant.Abort(tid);

    Task ISnapperParticipant.OnBatch(SubBatch batch)
    {
        PactParticipant.OnBatch(batch);
        return Task.CompletedTask;
    }

    Task ISnapperParticipant.OnAbort(long bid, long through, Dictionary<long, Exception> failures)
    {
        PactParticipant.OnAbort(bid, through, failures);
        return Task.CompletedTask;
    }

    Task<PactAbortAnswer> ISnapperParticipant.AbortPact(long bid, long tid, Exception cause) => PactParticipant.AbortPact(bid, tid, cause);

    Task<TransactionAbortedException?> ISnapperParticipant.AwaitPact(long tid, long bid, string coordinator) => PactParticipant.AwaitOutcome(tid, bid, coordinator);

    Task<(long Tid, string Description)> ISnapperParticipant.DescribeWait(long bid) => Task.FromResult(PactParticipant.DescribeWait(bid));

    Task ISnapperParticipant.BatchBehind(long tid, long bid)
    {
        ActParticipant.Root.OnBatchBehind(tid, bid);
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

    Task ISnapperParticipant.BatchWaitDoomed(long tid, long behind)
    {
        ActParticipant.OnBatchWaitDoomed(tid, behind);
        return Task.CompletedTask;
    }

    Task ISnapperParticipant.StopWaiting(long tid)
    {
        ActParticipant.OnStopWaiting(tid);
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
        if (holdTimer is null && actServices is not null)
        {
            DelayDeactivation(TimeSpan.MaxValue);
            var period = actServices.Options.TransactionTimeout / 4;
            holdTimer = this.RegisterGrainTimer(ReleaseWhenDecided, period, period);
        }
    }

    private Task ReleaseWhenDecided()
    {
        if (act is null || pact is null || act.ActiveRecords > 0 || act.Roots.Count > 0 || pact.HasUncommittedBatches || !act.WhenUndecidedSettled.IsCompleted)
        {
            return Task.CompletedTask;
        }

        holdTimer?.Dispose();
        holdTimer = null;
        var retained = retainedUntil - actServices!.Clock.GetUtcNow();
        DelayDeactivation(retained > TimeSpan.Zero ? retained : TimeSpan.Zero); // zero: collected as usual again
        return Task.CompletedTask;
    }

    // An ACT that released its locks early is asked about by its dependents for a while after it ends.
    private void Retain(TimeSpan retention)
    {
        retainedUntil = actServices!.Clock.GetUtcNow() + retention;
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
            var period = actServices!.Options.TransactionTimeout / 4;
            expiryTimer = this.RegisterGrainTimer(ExpireRecords, period, period);
        }
    }

    private Task ExpireRecords()
    {
        if (ActParticipant.ExpireRecords(actServices!.Clock.GetUtcNow()) == 0)
        {
            expiryTimer?.Dispose();
            expiryTimer = null;
        }

        return Task.CompletedTask;
    }

    // The actor's id is its transactional interface (the most derived one it implements) and its
    // Orleans key, read according to that interface's key kind.
    private ActorId SelfId()
    {
        var actorInterface = ActorInterfaces.GetOrAdd(GetType(), static type =>
        {
            var candidates = type.GetInterfaces()
                .Where(i => i != typeof(ITransactionalActor) && typeof(ITransactionalActor).IsAssignableFrom(i))
                .ToArray();
            var mostDerived = candidates.Where(c => !candidates.Any(o => o != c && c.IsAssignableFrom(o))).ToArray();
            return mostDerived.Length == 1
                ? mostDerived[0]
                : throw new SnapperException(
                    $"{type.FullName} must implement exactly one transactional actor interface (deriving from {nameof(ITransactionalActor)}); it implements {(mostDerived.Length == 0 ? "none" : string.Join(", ", mostDerived.Select(i => i.FullName)))}.");
        });

        var key = typeof(IGrainWithIntegerKey).IsAssignableFrom(actorInterface) ? this.GetPrimaryKeyLong().ToString(CultureInfo.InvariantCulture)
            : typeof(IGrainWithStringKey).IsAssignableFrom(actorInterface) ? this.GetPrimaryKeyString()
            : typeof(IGrainWithGuidKey).IsAssignableFrom(actorInterface) ? this.GetPrimaryKey().ToString()
            : throw new SnapperException($"Actor interface {actorInterface.FullName} must also derive from an Orleans key interface: IGrainWithIntegerKey, IGrainWithStringKey or IGrainWithGuidKey.");
        return ActorId.Create(actorInterface, key);
    }
}

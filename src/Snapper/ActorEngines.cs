using Microsoft.Extensions.DependencyInjection;
using Orleans.Serialization.Invocation;
using Snapper.Act;
using Snapper.Configuration;
using Snapper.Grains;
using Snapper.Logging;
using Snapper.Pact;
using Snapper.Protocol;
using Snapper.Reconnaissance;
using Snapper.Recovery;
using Snapper.Scheduling;
using Snapper.State;

namespace Snapper;

/// <summary>
/// The protocol side of one transactional actor, behind the class users inherit
/// (<see cref="TransactionalActor{TState}"/>): its two engines — <see cref="ActParticipant{TState}"/>
/// (with the <see cref="ActRoot{TState}"/> of its ACTs) and <see cref="PactParticipant{TState}"/> —
/// over one local schedule and one set of state versions (Snapper §4.4.1); what the actor's call
/// filter does with a transactional call; and the activation's start from what the
/// <see cref="ActivationLoader"/> finds, and its end, handing over to the next activation.
/// </summary>
internal sealed class ActorEngines<TState>
    where TState : class
{
    private readonly ActServices services;
    private readonly ActivationLoader loader;
    private readonly ActiveActors active;
    private readonly object activation;
    private readonly long sequence; // this activation's place in the actor's chain (CommittedState.Sequence)

    private ActorEngines(ActParticipant<TState> act, PactParticipant<TState> pact, ActServices services, ActivationLoader loader, ActiveActors active, object activation, long sequence)
    {
        this.sequence = sequence;
        Act = act;
        Pact = pact;
        Reconnaissance = new ReconnaissanceParticipant<TState>(act.Id, services, act.Versions);
        this.services = services;
        this.loader = loader;
        this.active = active;
        this.activation = activation;
    }

    public ActParticipant<TState> Act { get; }

    public PactParticipant<TState> Pact { get; }

    /// <summary>The reconnaissance runs of promoted ACTs: no lock, batch or log; nothing written.</summary>
    public ReconnaissanceParticipant<TState> Reconnaissance { get; }

    public SnapperOptions Options => services.Options;

    public TimeProvider Clock => services.Clock;

    /// <summary>True while a transaction is undecided here: the activation must stay (see <see cref="TransactionalActor{TState}"/>).</summary>
    public bool Undecided => Act.ActiveRecords > 0 || Act.Roots.Count > 0 || Pact.HasUncommittedBatches || !Act.WhenUndecidedSettled.IsCompleted;

    /// <summary>
    /// Starts actor <paramref name="id"/>'s engines on its last committed state (or
    /// <paramref name="initial"/>), with what an earlier activation handed over. The hooks:
    /// <paramref name="onRecord"/> when an ACT record is added, <paramref name="retain"/> when
    /// outcomes must be answered for a while, and the actor itself (<paramref name="self"/>).
    /// </summary>
    public static async Task<ActorEngines<TState>> Start(IServiceProvider provider, ActorId id, TState initial, object activation, Action onRecord, Action<TimeSpan> retain, ISnapperParticipant self)
    {
        var active = provider.GetRequiredService<ActiveActors>();
        var services = provider.GetRequiredService<ActServices>();
        var loader = provider.GetRequiredService<ActivationLoader>();
        var (handedOver, committed, undecided, sequence) = await loader.Load(id);
        ActParticipant<TState> act;
        PactParticipant<TState> pact;
        try
        {
            // The state may not deserialize (a deployment that changed its type), or anything
            // below may throw: the activation fails, and what it took is given back for the next.
            var versions = StateVersions<TState>.Load(id, services.Serializer, initial, committed);
            var schedule = new LocalSchedule(id, services.Clock);
            act = new ActParticipant<TState>(id, services, versions, schedule);
            act.Attach(onRecord, retain, self);
            act.AdoptUndecided([.. undecided, .. PreparedBefore(id, handedOver, undecided)]);
            act.AdoptCommitted(CommittedBefore(handedOver));
            if (handedOver is { Outcomes.IsDefaultOrEmpty: false } kept)
            {
                act.Roots.Adopt(kept.Outcomes);
                retain(act.Roots.Retention);
            }

            pact = new PactParticipant<TState>(id, provider.GetRequiredService<PactServices>(), versions, schedule);
            if (handedOver?.Batches is { } batches && handedOver.Value.Version == versions.CommittedVersion)
            {
                pact.Resume(batches); // on the committed state they were built on
            }
        }
        catch
        {
            loader.GiveBack(id, handedOver);
            throw;
        }

        active.Add(id, activation);
        return new ActorEngines<TState>(act, pact, services, loader, active, activation, sequence);
    }

    /// <summary>The engine <paramref name="ctx"/>'s transaction runs in: the PACT engine for a PACT, else the ACT engine (a reconnaissance has its own).</summary>
    public ITransactionEngine<TState> For(TxnContext ctx)
    {
        ArgumentNullException.ThrowIfNull(ctx);
        return ctx.Reconnaissance ? Reconnaissance : ctx.Mode == TxnMode.Pact ? Pact : Act;
    }

    /// <summary>
    /// Orleans has started to deactivate this activation: it takes no message until the calls
    /// running here return, so the calls that wait here for one end now.
    /// </summary>
    public void Leave()
    {
        Act.Leave();
        Pact.Leave();
    }

    /// <summary>
    /// The activation has gone: it leaves its committed state for the next activation, here or on
    /// another silo, instead of an older one from the logs. With nothing undecided here it goes to
    /// the store of states at rest; otherwise it stays on this silo, and the writes prepared here
    /// for ACTs not decided yet go along: a deactivation does not wait for an ACT's Commit
    /// (DelayDeactivation holds off only idle collection; a shutdown, a migration or
    /// DeactivateOnIdle do not wait for it), so how it goes does not say whether it is settled.
    /// </summary>
    public async Task HandOver(CancellationToken cancellationToken)
    {
        var versions = Act.Versions;
        var settled = !Undecided;
        var state = new CommittedState(versions.CommittedVersion, services.Serializer.Serialize(versions.Committed))
        {
            Undecided = Act.HandOver(),
            Batches = Pact.HandOver(),
            Outcomes = Act.Roots.HandOver(),
            Committed = Act.HandOverCommitted(),
            Sequence = sequence,
        };
        try
        {
            await loader.Leave(Act.Id, state, settled && state.Undecided.IsDefaultOrEmpty, cancellationToken);
        }
        finally
        {
            active.Remove(Act.Id, activation);
        }
    }

    /// <summary>The actor's call filter, for a call whose first argument is <paramref name="ctx"/>.</summary>
    public async Task Invoke(IIncomingGrainCallContext context, TxnContext ctx)
    {
        if (!Act.WhenUndecidedSettled.IsCompleted)
        {
            // Activated after its silo died, with writes it prepared there still undecided: no
            // transaction may see this state until their roots have said how they ended.
            await Act.WhenUndecidedSettled;
        }

        if (ctx.Reconnaissance)
        {
            await Reconnoitre(context, ctx);
            return;
        }

        if (ctx.Start)
        {
            await InvokeAsRoot(context, ctx);
            return;
        }

        if (ctx.Mode == TxnMode.Pact)
        {
            Pact.Arrived(ctx);
            try
            {
                await Pact.InvokePact(ctx, context.Invoke);
            }
            catch (Exception e)
            {
                Pact.Answered(ctx, context.SourceId, null, e);
                throw;
            }

            Pact.Answered(ctx, context.SourceId, context.Response?.Result, null);
            return;
        }

        var (info, failure) = await Act.Invoke(ctx, context.Invoke);
        context.Response = ExecutionInfoResponse.Create(failure is null ? context.Response! : Response.FromException(failure), info);
    }

    private async Task Reconnoitre(IIncomingGrainCallContext context, TxnContext ctx)
    {
        CallReport report;
        if (ctx.Start)
        {
            CheckRoot(ctx);
            ctx = ctx with { Start = false };
            context.Request.SetArgument(0, ctx);
            report = await Reconnaissance.InvokeAsRoot(ctx, context.Invoke);
        }
        else
        {
            report = await Reconnaissance.Invoke(ctx, context.Invoke);
        }

        var (info, failure) = report;
        context.Response = ExecutionInfoResponse.Create(failure is null ? context.Response! : Response.FromException(failure), info);
    }

    private void CheckRoot(TxnContext ctx)
    {
        if (ctx.Root != Act.Id)
        {
            throw new SnapperException($"The transaction {ctx} was started on actor {ctx.Root}, but its first call reached {Act.Id}: a RunAct or RunPact body must call the first actor it names.");
        }
    }

    private async Task InvokeAsRoot(IIncomingGrainCallContext context, TxnContext ctx)
    {
        CheckRoot(ctx);

        // User code and every call it makes get the context without the start mark.
        var running = ctx with { Start = false, EarlyLockRelease = false, RootSilo = ctx.EarlyLockRelease ? services.ActOutcomes.Silo : null };
        context.Request.SetArgument(0, running);
        if (ctx.Mode == TxnMode.Pact)
        {
            if (await Pact.RunPactAsRoot(running, context.Invoke))
            {
                // Ran, but this activation is going before the batch was decided: the caller's
                // filter asks the next activation for the outcome.
                context.Response = PendingPactResponse.Create(context.Response!, running.Tid, running.Bid, running.Coordinator!, Act.Id);
            }
        }
        else if (await Act.Root.RunAsRoot(running, ctx.EarlyLockRelease, context.Invoke) is { } aborted)
        {
            // An abort, or a TransactionInDoubtException where the outcome could not be learned.
            // Answered, not thrown. For a method with a result, wrapped: it passes Orleans'
            // invokers on both sides as a value and is thrown once, where the caller reads the
            // result (by Orleans even for a caller without Snapper's filter). Without a result
            // the caller reads none, so Orleans must throw it as the response arrives.
            var failed = Response.FromException(aborted);
            context.Response = ExecutionInfoResponse.ReadsResult(context) ? ExecutionInfoResponse.Create(failed, new ExecutionInfo()) : failed;
        }
    }

    // The ACTs an earlier activation committed, and those whose handed-over write the committed
    // state already covers (a write of an ACT that is to commit is superseded only by one built on
    // it: the ACT committed): a Commit for any of them is no news here.
    private static IEnumerable<long> CommittedBefore(CommittedState? handedOver) =>
        handedOver is { } state
            ? (state.Committed.IsDefaultOrEmpty ? [] : state.Committed).Concat(state.Undecided.IsDefaultOrEmpty ? [] : state.Undecided.Where(w => w.Version <= state.Version).Select(w => w.Tid))
            : [];

    // The writes an earlier activation prepared and handed over, not already among the failover's.
    private static IEnumerable<PrepareRecord> PreparedBefore(ActorId id, CommittedState? handedOver, IReadOnlyList<PrepareRecord> fromFailover) =>
        handedOver is { Undecided.IsDefaultOrEmpty: false } state
            ? state.Undecided.Where(w => w.Version > state.Version && !fromFailover.Any(f => f.Tid == w.Tid))
                .Select(w => new PrepareRecord(w.Tid, id, w.Root, w.State) { Version = w.Version, Delta = w.Delta })
            : [];
}

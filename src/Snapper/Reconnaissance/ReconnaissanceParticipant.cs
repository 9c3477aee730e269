using Snapper.Act;
using Snapper.Diagnostics;
using Snapper.Grains;
using Snapper.Protocol;
using Snapper.State;

namespace Snapper.Reconnaissance;

/// <summary>
/// The reconnaissance engine of one transactional actor: OLLP's reconnaissance query (Thomson et
/// al., Calvin §3.2.1) for a promoted ACT (<c>ActOptions.Promote</c>) whose body calls its actors in
/// rounds. The body runs once against each actor's newest state, with no lock, no place in a batch
/// and no log record, and every write it makes goes to a copy of the run's own that is dropped
/// when the run ends (<see cref="ReconnaissanceWrites{TState}"/>); what comes back is which actors
/// it called and how often, and the PACT that follows declares exactly that. A body whose calls
/// depend on data that changes in between calls beyond that declaration, and learns the rest as
/// any promoted run does.
/// </summary>
/// <remarks>
/// <para>Nothing here outlives the run, and nothing outlives the activation: one that goes at any
/// await drops the run's writes, and the caller's call fails or is answered by the next
/// activation; either way the reconnaissance only guesses. It reads batches' states before they
/// commit, and an ACT's committed state, but no transaction depends on what it read:
/// serializability rests on the PACT alone.</para>
/// <para>It is bounded: past its deadline, or after <see cref="MaxCalls"/> calls from one call, each
/// of its calls and state accesses fails with <see cref="AbortReason.Timeout"/>, and the stop rides
/// back to the client in every report (<see cref="ExecutionInfo.Failure"/>), so user code that
/// catches it does not hide it: the transaction aborts instead of spinning on the silo.</para>
/// </remarks>
internal sealed class ReconnaissanceParticipant<TState>(ActorId id, ActorServices services, StateVersions<TState> versions) : ITransactionEngine<TState>
    where TState : class
{
    /// <summary>Calls one call of a reconnaissance may make over its subtree; a body past it is taken for one that never ends.</summary>
    internal const int MaxCalls = 10_000;

    private readonly ReconnaissanceWrites<TState> writes = new();

    /// <summary>What the runs under way wrote here (tests).</summary>
    internal ReconnaissanceWrites<TState> Writes => writes;

    /// <summary>
    /// A call of a reconnaissance arrives here (<paramref name="invoke"/> runs the user's method):
    /// run it and report the calls it made, with this one, and its failure, if any.
    /// </summary>
    public async Task<CallReport> Invoke(TxnContext ctx, Func<Task> invoke)
    {
        var scope = new ReconnaissanceScope(ctx);
        ReconnaissanceScope.Current = scope;
        Exception? failure = Stop(scope, calling: false);
        if (failure is null)
        {
            try
            {
                var call = invoke();
                await call.ConfigureAwait(ConfigureAwaitOptions.ContinueOnCapturedContext | ConfigureAwaitOptions.SuppressThrowing);
                failure = call.IsFaulted ? call.Exception.InnerException : call.IsCanceled ? new TaskCanceledException(call) : null;
            }
            catch (Exception e)
            {
                failure = e;
            }
        }

        var role = writes.Wrote(ctx.ReconnaissanceRun) ? ParticipantRole.Writer : ParticipantRole.Visitor; // the root ends the run where it wrote
        scope.Learned.Add(id, role, scope.Learned.Participants.TryGetValue(id, out var self) ? self.Calls + 1 : 1);
        return new CallReport(scope.Learned, failure);
    }

    /// <summary>
    /// The first call of a reconnaissance run arrives here, at its root: <see cref="Invoke"/>, then
    /// the run has ended, so what it wrote goes, here and on every actor it wrote (one-way).
    /// </summary>
    public async Task<CallReport> InvokeAsRoot(TxnContext ctx, Func<Task> invoke)
    {
        var report = await Invoke(ctx, invoke);
        writes.End(ctx.ReconnaissanceRun);
        foreach (var (actor, participation) in report.Info.Participants)
        {
            if (participation.Role == ParticipantRole.Writer && actor != id)
            {
                _ = EndOn(actor, ctx.ReconnaissanceRun);
            }
        }

        return report;
    }

    /// <summary>Reconnaissance <paramref name="run"/> has ended: what it wrote here goes.</summary>
    public void End(Guid run) => writes.End(run);

    /// <summary>Nothing: a reconnaissance is no transaction and never commits; the PACT run after it registers its actions.</summary>
    public void AfterCommit(TxnContext ctx, object message)
    {
        ArgumentNullException.ThrowIfNull(message);
        ScopeOf(ctx, nameof(AfterCommit));
    }

    public ValueTask<TState> GetState(TxnContext ctx, AccessMode mode)
    {
        var scope = ScopeOf(ctx, nameof(GetState));
        if (Stop(scope, calling: false) is { } stop)
        {
            throw stop;
        }

        if (writes.TryGet(ctx.ReconnaissanceRun, out var written))
        {
            return new ValueTask<TState>(written); // the run's own write, whichever of its calls made it
        }

        var latest = versions.ReadLatest().State; // not an ACT's read: nothing depends on it
        if (mode != AccessMode.ReadWrite)
        {
            return new ValueTask<TState>(latest);
        }

        var copy = services.Serializer.Copy(latest);
        writes.Add(ctx.ReconnaissanceRun, copy, ctx.Deadline, services.Clock.GetUtcNow());
        return new ValueTask<TState>(copy);
    }

    public async Task<TResult> CallActor<TActor, TResult>(TxnContext ctx, ActorId target, Func<TActor, Task> call)
        where TActor : ITransactionalActor
    {
        ArgumentNullException.ThrowIfNull(call);
        var scope = ScopeOf(ctx, nameof(CallActor));
        if (Stop(scope, calling: true) is { } stop)
        {
            throw stop;
        }

        var learned = new ExecutionInfo(); // the callee's report: ExecutionInfoCallFilter puts it here
        ExecutionInfoSink.Value = learned;
        try
        {
            var answer = call(services.Resolver.Get<TActor>(target));
            await answer;
            return CallAnswers.ResultOf<TResult>(answer);
        }
        finally
        {
            ExecutionInfoSink.Value = null;
            if (learned.Participants.Count == 0)
            {
                learned.Add(target, ParticipantRole.Visitor, 1); // no report came back: it may have been called
            }

            scope.Returned(learned);
        }
    }

    // The run's stop, noted in the call's report, once it is past its deadline or, for a call
    // about to be made, once this call's subtree has made as many as a run may.
    private TransactionAbortedException? Stop(ReconnaissanceScope scope, bool calling)
    {
        var stop = services.Clock.GetUtcNow() > scope.Context.Deadline ? Aborts.ReconnaissancePastDeadline(services.Options.TransactionTimeout)
            : calling && scope.Calls >= MaxCalls ? Aborts.ReconnaissanceUnbounded(scope.Calls)
            : null;
        if (stop is not null)
        {
            scope.Learned.Fail(stop);
        }

        return stop;
    }

    private async Task EndOn(ActorId actor, Guid run)
    {
        try
        {
            await services.Resolver.Participant(actor).EndReconnaissance(run);
        }
        catch (Exception e)
        {
            LogMessages.DeliveryFailed(services.Diagnostics, e, actor); // its copy goes at the run's deadline
        }
    }

    private static ReconnaissanceScope ScopeOf(TxnContext ctx, string member) =>
        ReconnaissanceScope.Current is { } scope && (ReferenceEquals(scope.Context, ctx) || scope.Context.Equals(ctx))
            ? scope
            : throw new SnapperException($"{member} was given the TxnContext of a reconnaissance outside the call it came with: pass a TxnContext only within its own call and through CallActor.");
}

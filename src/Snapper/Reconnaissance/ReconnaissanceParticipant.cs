using Snapper.Act;
using Snapper.Grains;
using Snapper.Protocol;
using Snapper.State;

namespace Snapper.Reconnaissance;

/// <summary>
/// The reconnaissance engine of one transactional actor: OLLP's reconnaissance query (Thomson et
/// al., Calvin §3.2.1) for a promoted ACT (<c>ActOptions.Promote</c>) whose body calls its actors in
/// rounds. The body runs once against each actor's newest state, with no lock, no place in a batch
/// and no log record, and every write it makes goes to a copy that is dropped; what comes back is
/// which actors it called and how often, and the PACT that follows declares exactly that. A body
/// whose calls depend on data that changes in between calls beyond that declaration, and learns the
/// rest as any promoted run does.
/// </summary>
/// <remarks>
/// Nothing here outlives the call (<see cref="ReconnaissanceScope"/>), so an activation that goes
/// at any await loses nothing: the caller's call fails or is answered by the next activation, and
/// either way the reconnaissance only guesses. It reads batches' states before they commit, and an
/// ACT's committed state, but no transaction depends on what it read: serializability rests on the
/// PACT alone.
/// </remarks>
internal sealed class ReconnaissanceParticipant<TState>(ActorId id, ActorServices services, StateVersions<TState> versions) : ITransactionEngine<TState>
    where TState : class
{
    /// <summary>
    /// A call of a reconnaissance arrives here (<paramref name="invoke"/> runs the user's method):
    /// run it and report the calls it made, with this one, and its failure, if any.
    /// </summary>
    public async Task<CallReport> Invoke(TxnContext ctx, Func<Task> invoke)
    {
        var scope = new ReconnaissanceScope(ctx);
        ReconnaissanceScope.Current = scope;
        Exception? failure;
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

        scope.Learned.Add(id, ParticipantRole.Visitor, scope.Learned.Participants.TryGetValue(id, out var self) ? self.Calls + 1 : 1);
        return new CallReport(scope.Learned, failure);
    }

    public ValueTask<TState> GetState(TxnContext ctx, AccessMode mode)
    {
        var scope = ScopeOf(ctx, nameof(GetState));
        if (scope.Working is TState written)
        {
            return new ValueTask<TState>(written);
        }

        var latest = versions.ReadLatest().State; // not an ACT's read: nothing depends on it
        return new ValueTask<TState>(mode == AccessMode.ReadWrite ? (TState)(scope.Working = services.Serializer.Copy(latest)) : latest);
    }

    public async Task<TResult> CallActor<TActor, TResult>(TxnContext ctx, ActorId target, Func<TActor, Task> call)
        where TActor : ITransactionalActor
    {
        ArgumentNullException.ThrowIfNull(call);
        var scope = ScopeOf(ctx, nameof(CallActor));
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

            scope.Learned.AddCalls(learned);
        }
    }

    private static ReconnaissanceScope ScopeOf(TxnContext ctx, string member) =>
        ReconnaissanceScope.Current is { } scope && (ReferenceEquals(scope.Context, ctx) || scope.Context.Equals(ctx))
            ? scope
            : throw new SnapperException($"{member} was given the TxnContext of a reconnaissance outside the call it came with: pass a TxnContext only within its own call and through CallActor.");
}

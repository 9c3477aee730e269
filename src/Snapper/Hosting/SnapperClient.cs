using Snapper.Grains;

namespace Snapper.Hosting;

/// <summary>
/// Starts transactions from a silo (its host or its grains). The body runs here, against an
/// ordinary grain reference to the first actor; its first call carries the root mark
/// (<see cref="RootCall"/>), so the first actor runs the transaction as its root and answers only
/// once the transaction has committed or aborted.
/// </summary>
internal sealed class SnapperClient(SnapperRuntime runtime) : ISnapperClient
{
    public Task<TResult> RunAct<TActor, TResult>(ActorId first, Func<TActor, TxnContext, Task<TResult>> body, CancellationToken cancellationToken = default)
        where TActor : ITransactionalActor =>
        RunAct(first, body, ActOptions.Default, cancellationToken);

    public Task<TResult> RunAct<TActor, TResult>(ActorId first, Func<TActor, TxnContext, Task<TResult>> body, ActOptions options, CancellationToken cancellationToken = default)
        where TActor : ITransactionalActor
    {
        ArgumentNullException.ThrowIfNull(body);
        ArgumentNullException.ThrowIfNull(options);
        cancellationToken.ThrowIfCancellationRequested();
        var earlyLockRelease = options.EarlyLockRelease ?? runtime.Options.EarlyLockRelease;
        var actor = runtime.Resolver.Get<TActor>(first);
        var ctx = new TxnContext(runtime.Tids.NextActTid(), TxnMode.Act, first, runtime.Clock.GetUtcNow() + runtime.Options.TransactionTimeout);
        return Start(ctx, earlyLockRelease, () => body(actor, ctx));
    }

    public Task RunAct<TActor>(ActorId first, Func<TActor, TxnContext, Task> body, CancellationToken cancellationToken = default)
        where TActor : ITransactionalActor
    {
        ArgumentNullException.ThrowIfNull(body);
        return RunAct<TActor, bool>(first, async (actor, ctx) =>
        {
            await body(actor, ctx);
            return true;
        }, cancellationToken);
    }

    public async Task<TResult> RunPact<TActor, TResult>(ActorId first, Func<TActor, TxnContext, Task<TResult>> body, AccessSet declared, CancellationToken cancellationToken = default)
        where TActor : ITransactionalActor
    {
        ArgumentNullException.ThrowIfNull(body);
        ArgumentNullException.ThrowIfNull(declared);
        cancellationToken.ThrowIfCancellationRequested();
        var actor = runtime.Resolver.Get<TActor>(first);
        if (declared.CallsOn(first) == 0)
        {
            throw new TransactionAbortedException(AbortReason.DeclarationError, $"the PACT starts on actor {first}, which its declaration does not name ({declared})");
        }

        foreach (var declaredActor in declared.Accesses.Keys)
        {
            // Fail before the PACT joins a batch: an actor that cannot take part would stall it.
            if (ActorTypes.Resolve(declaredActor.Type) is not { } type || !typeof(ITransactionalActor).IsAssignableFrom(type))
            {
                throw new SnapperException($"The PACT declares actor {declaredActor}, which is not a transactional actor.");
            }

            runtime.Resolver.GrainIdOf(declaredActor);
        }

        var ctx = await runtime.Ring.NewPact(first, declared);
        return await Start(ctx, earlyLockRelease: false, () => body(actor, ctx));
    }

    public Task RunPact<TActor>(ActorId first, Func<TActor, TxnContext, Task> body, AccessSet declared, CancellationToken cancellationToken = default)
        where TActor : ITransactionalActor
    {
        ArgumentNullException.ThrowIfNull(body);
        return RunPact<TActor, bool>(first, async (actor, ctx) =>
        {
            await body(actor, ctx);
            return true;
        }, declared, cancellationToken);
    }

    public Task<TResult> Call<TActor, TResult>(ActorId actor, Func<TActor, Task<TResult>> call)
        where TActor : IActor
    {
        ArgumentNullException.ThrowIfNull(call);
        return call(runtime.Resolver.Get<TActor>(actor));
    }

    // Async so the root mark stays in this flow's request context and never leaks to the caller's.
    private static async Task<TResult> Start<TResult>(TxnContext ctx, bool earlyLockRelease, Func<Task<TResult>> body)
    {
        RootCall.Mark(ctx.Tid, earlyLockRelease);
        return await body();
    }
}

using Snapper.Act;
using Snapper.Pact;

namespace Snapper.Hosting;

/// <summary>Starts transactions on their first actor, which runs them and coordinates their commit.</summary>
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
        var earlyLockRelease = options.EarlyLockRelease ?? runtime.Options.EarlyLockRelease;
        var activation = runtime.Directory.Get<TActor>(first);
        var root = (IActParticipant)activation.Instance;
        return activation.Run(() => root.RunAsRoot(body, earlyLockRelease, cancellationToken));
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
        var activation = runtime.Directory.Get<TActor>(first);
        if (declared.CallsOn(first) == 0)
        {
            throw new TransactionAbortedException(AbortReason.DeclarationError, $"the PACT starts on actor {first}, which its declaration does not name ({declared})");
        }

        foreach (var actor in declared.Accesses.Keys)
        {
            // Fail before the PACT joins a batch: an unknown actor there would stall the batch.
            if (runtime.Directory.Get(actor).Instance is not IPactParticipant)
            {
                throw new SnapperException($"The PACT declares actor {actor}, which is not a transactional actor.");
            }
        }

        var ctx = await runtime.Ring.NewPact(first, declared);
        var root = (IPactParticipant)activation.Instance;
        return await activation.Run(() => root.RunPactAsRoot(ctx, body));
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
        var activation = runtime.Directory.Get<TActor>(actor);
        var instance = (TActor)activation.Instance;
        return activation.Run(() => call(instance));
    }
}

using Snapper.Act;

namespace Snapper.Hosting;

/// <summary>Starts transactions on their first actor, which runs them and coordinates their commit.</summary>
internal sealed class SnapperClient(SnapperRuntime runtime) : ISnapperClient
{
    public Task<TResult> RunAct<TActor, TResult>(ActorId first, Func<TActor, TxnContext, Task<TResult>> body, CancellationToken cancellationToken = default)
        where TActor : ITransactionalActor
    {
        ArgumentNullException.ThrowIfNull(body);
        var activation = runtime.Directory.Get<TActor>(first);
        var root = (IActParticipant)activation.Instance;
        return activation.Run(() => root.RunAsRoot(body, cancellationToken));
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

    public Task<TResult> Call<TActor, TResult>(ActorId actor, Func<TActor, Task<TResult>> call)
        where TActor : IActor
    {
        ArgumentNullException.ThrowIfNull(call);
        var activation = runtime.Directory.Get<TActor>(actor);
        var instance = (TActor)activation.Instance;
        return activation.Run(() => call(instance));
    }
}

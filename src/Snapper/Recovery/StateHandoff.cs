using Orleans.Concurrency;
using Snapper.Coordination;

namespace Snapper.Recovery;

/// <summary>Answers <see cref="IStateHandoff"/> from this silo's <see cref="CommittedStates"/>.</summary>
[Reentrant]
[SiloBoundPlacement]
internal sealed class StateHandoff(CommittedStates states) : Grain, IStateHandoff
{
    /// <summary>The key of silo <paramref name="silo"/>'s hand-off grain.</summary>
    public static string KeyOf(string silo) => $"{silo}/handoff";

    /// <inheritdoc />
    public override async Task OnActivateAsync(CancellationToken cancellationToken)
    {
        await Task.Yield(); // never complete activation synchronously: see TransactionalActor.OnActivateAsync
        await base.OnActivateAsync(cancellationToken);
    }

    public Task<CommittedState?> Take(ActorId actor) => Task.FromResult(states.Take(actor));
}

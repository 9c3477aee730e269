using Orleans.Concurrency;
using Snapper.Grains;

namespace Snapper.Recovery;

/// <summary>Answers <see cref="IStateHandoff"/> from this silo's <see cref="CommittedStates"/>.</summary>
[Reentrant]
[SiloBoundPlacement]
internal sealed class StateHandoff(CommittedStates states, TimeProvider clock) : SiloBoundGrain, IStateHandoff
{
    // How long a hand-over is answered again to the same request: far longer than its retries take.
    private static readonly TimeSpan KeepAnswer = TimeSpan.FromMinutes(5);

    /// <summary>The key of silo <paramref name="silo"/>'s hand-off grain.</summary>
    public static string KeyOf(string silo) => $"{silo}/handoff";

    public Task<CommittedState?> Take(ActorId actor, Guid request)
    {
        var now = clock.GetUtcNow();
        return Task.FromResult(states.Take(actor, request, now, now + KeepAnswer));
    }
}

using Microsoft.Extensions.Logging;
using Orleans.Concurrency;

namespace Snapper.Recovery;

/// <summary>Answers <see cref="IStateHandoff"/> from this silo's <see cref="CommittedStates"/>.</summary>
[Reentrant]
internal sealed class StateHandoff(GrainId id, Silo silo, ILoggerFactory loggerFactory, CommittedStates states, TimeProvider clock)
    : GrainService(id, silo, loggerFactory), IStateHandoff
{
    // How long a hand-over is answered again to the same request: far longer than its retries take.
    private static readonly TimeSpan KeepAnswer = TimeSpan.FromMinutes(5);

    public Task<CommittedState?> Take(ActorId actor, Guid request)
    {
        var now = clock.GetUtcNow();
        return Task.FromResult(states.Take(actor, request, now, now + KeepAnswer));
    }
}

using System.Collections.Concurrent;
using Snapper.Protocol;

namespace Snapper.Recovery;

/// <summary>
/// The last committed state of actors that are not active on this silo: read from the logs (of
/// every silo) at start-up by <see cref="LogRecovery"/>, and left by actors that deactivated here.
/// An actor that activates takes its entry — here, or from another silo through
/// <see cref="IStateHandoff"/> — so at most one silo holds a state for it, and where several
/// might (after a restart), the highest version wins.
/// </summary>
internal sealed class CommittedStates
{
    private readonly ConcurrentDictionary<ActorId, CommittedState> states = new();
    private readonly ConcurrentDictionary<ActorId, TakenState> taken = new();
    private long maxTid;

    /// <summary>The highest tid or bid found in any log (0 for empty logs).</summary>
    public long MaxTid => Interlocked.Read(ref maxTid);

    /// <summary>Actors with a state here.</summary>
    public int Count => states.Count;

    /// <summary>Keeps <paramref name="state"/> for <paramref name="actor"/>, merged with any held (<see cref="CommittedState.Merge"/>).</summary>
    public void Offer(ActorId actor, CommittedState state) =>
        states.AddOrUpdate(actor, state, (_, held) => CommittedState.Merge(state, held));

    /// <summary>Removes <paramref name="state"/> if it is still what is held for <paramref name="actor"/> (not taken or merged with another since).</summary>
    public void Remove(ActorId actor, CommittedState state) => states.TryRemove(KeyValuePair.Create(actor, state));

    /// <summary>Removes and returns the state held for <paramref name="actor"/>, if any.</summary>
    public CommittedState? Take(ActorId actor) => states.TryRemove(actor, out var state) ? state : null;

    /// <summary>
    /// <see cref="Take(ActorId)"/> for an activation on another silo, whose answer may be lost on the way:
    /// the same <paramref name="request"/> asked again until <paramref name="until"/> gets the same
    /// state, instead of nothing (the state is gone from here once taken).
    /// </summary>
    public CommittedState? Take(ActorId actor, Guid request, DateTimeOffset now, DateTimeOffset until)
    {
        if (taken.TryGetValue(actor, out var earlier) && earlier.Request == request)
        {
            return earlier.State;
        }

        foreach (var (other, answer) in taken)
        {
            if (answer.Until < now)
            {
                taken.TryRemove(new KeyValuePair<ActorId, TakenState>(other, answer));
            }
        }

        var state = Take(actor);
        taken[actor] = new TakenState(request, state, until);
        return state;
    }

    internal void SawTid(long tid)
    {
        long seen;
        while ((seen = Interlocked.Read(ref maxTid)) < tid && Interlocked.CompareExchange(ref maxTid, tid, seen) != seen)
        {
        }
    }

    // The last state handed to another silo for an actor, kept for a repeated request.
    private sealed record TakenState(Guid Request, CommittedState? State, DateTimeOffset Until);
}

using System.Collections.Immutable;

namespace Snapper.Recovery;

/// <summary>
/// One actor's committed states by version, of equal versions the one read last. A whole state
/// makes every earlier version moot (unless the chain keeps its history, for a checkpoint that
/// must restate an earlier version: <see cref="Through"/>); deltas are kept until a whole state
/// above them arrives.
/// </summary>
/// <remarks>
/// Deltas with no whole state before them follow the actor's initial state if they begin at
/// version 1, and otherwise a state at rest (the whole state went to the store of states at rest
/// when a checkpoint truncated it, docs/architecture.md, "Checkpoints"): the chain says so with a
/// state <see cref="CommittedState.OnBaseAtRest"/>, which the reader completes with the actor's row.
/// </remarks>
internal sealed class StateChain(bool keepHistory = false)
{
    private readonly SortedList<long, (bool Delta, ReadOnlyMemory<byte> State)> versions = new();

    public void Offer(long version, bool delta, ReadOnlyMemory<byte> state)
    {
        versions[version] = (delta, state);
        if (!delta && !keepHistory)
        {
            while (versions.Keys[0] < version)
            {
                versions.RemoveAt(0);
            }
        }
    }

    // The last whole state (or the base the first delta builds on) and the deltas after it, which
    // must follow it version by version: a committed version's base committed before it and was
    // logged first (write-ahead, and commits on one actor are serial). Any other gap means records
    // are missing.
    public CommittedState Last(ActorId actor)
    {
        var (state, end) = Chain(versions.Count);
        if (end < versions.Count)
        {
            throw new InvalidDataException(
                $"The log holds a committed change to actor {actor}'s state at version {versions.Keys[end]} but none at version {state.Version + 1}: records are missing.");
        }

        return state;
    }

    /// <summary>
    /// As <see cref="Last"/>, for logs read while they grew: the state as far as the versions follow
    /// each other. A scan that reads one log after another may miss a decision appended to a log it
    /// had already read, and still count a state built on that transaction's from a log it read
    /// later; what lies past the gap is not vouched for by what it read, so it is left out.
    /// </summary>
    public CommittedState Unbroken() => Chain(versions.Count).State;

    /// <summary>
    /// The state at <paramref name="version"/> exactly, from the versions up to it (a chain that
    /// keeps its history); null if they do not reach it without a gap.
    /// </summary>
    public CommittedState? Through(long version)
    {
        var count = 0;
        while (count < versions.Count && versions.Keys[count] <= version)
        {
            count++;
        }

        if (count == 0)
        {
            return null;
        }

        var (state, _) = Chain(count);
        return state.Version == version ? state : null;
    }

    // Over the first `count` versions: the last whole state (none: the base of the first delta, at
    // rest or the initial state) and the deltas that follow it without a gap, and the index of the
    // first version past them (count: none).
    private (CommittedState State, int End) Chain(int count)
    {
        var whole = count - 1;
        while (whole >= 0 && versions.Values[whole].Delta)
        {
            whole--;
        }

        var first = whole + 1; // the first delta
        var end = first;
        while (end < count && (end == first ? whole < 0 || versions.Keys[end] == versions.Keys[whole] + 1 : versions.Keys[end] == versions.Keys[end - 1] + 1))
        {
            end++;
        }

        var deltas = ImmutableArray.CreateBuilder<ReadOnlyMemory<byte>>(end - first);
        for (var i = first; i < end; i++)
        {
            deltas.Add(versions.Values[i].State);
        }

        // With no whole state, an empty one under the deltas: the initial state below version 1, a state at rest above.
        var version = end > first ? versions.Keys[end - 1] : versions.Keys[whole];
        return (new CommittedState(version, whole < 0 ? ReadOnlyMemory<byte>.Empty : versions.Values[whole].State, deltas.MoveToImmutable()), end);
    }
}

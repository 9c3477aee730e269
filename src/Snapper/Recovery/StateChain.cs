using System.Collections.Immutable;

namespace Snapper.Recovery;

/// <summary>
/// One actor's committed states by version, of equal versions the one read last. A whole state
/// makes every earlier version moot; deltas are kept until a whole state above them arrives.
/// </summary>
internal sealed class StateChain
{
    private readonly SortedList<long, (bool Delta, ReadOnlyMemory<byte> State)> versions = new();

    public void Offer(long version, bool delta, ReadOnlyMemory<byte> state)
    {
        versions[version] = (delta, state);
        if (!delta)
        {
            while (versions.Keys[0] < version)
            {
                versions.RemoveAt(0);
            }
        }
    }

    // The last whole state and the deltas after it, which must follow it version by version: a
    // committed version's base committed before it and was logged first (write-ahead, and
    // commits on one actor are serial). The first version of all may itself be a delta, on the
    // actor's initial state (version 0: the whole state written first aborted), which the
    // returned state says with an empty whole state. Any other gap means records are missing.
    public CommittedState Last(ActorId actor)
    {
        var (state, end) = Chain();
        if (state is null)
        {
            throw new InvalidDataException(
                $"The log holds committed changes to actor {actor}'s state from version {versions.Keys[0]} but no whole state before them: records are missing.");
        }

        if (end < versions.Count)
        {
            throw new InvalidDataException(
                $"The log holds a committed change to actor {actor}'s state at version {versions.Keys[end]} but none at version {state.Value.Version + 1}: records are missing.");
        }

        return state.Value;
    }

    /// <summary>
    /// As <see cref="Last"/>, for logs read while they grew: the state as far as the versions follow
    /// each other (null: not even the first one is there). A scan that reads one log after another
    /// may miss a decision appended to a log it had already read, and still count a state built on
    /// that transaction's from a log it read later; what lies past the gap is not vouched for by
    /// what it read, so it is left out.
    /// </summary>
    public CommittedState? Unbroken() => Chain().State;

    // The last whole state (empty: the initial one) and the deltas that follow it without a gap,
    // and the index of the first version past them (versions.Count: none).
    private (CommittedState? State, int End) Chain()
    {
        var whole = versions.Count - 1;
        while (whole >= 0 && versions.Values[whole].Delta)
        {
            whole--;
        }

        if (whole < 0 && versions.Keys[0] != 1)
        {
            return (null, 0);
        }

        var end = whole + 1;
        while (end < versions.Count && versions.Keys[end] == (end == 0 ? 1 : versions.Keys[end - 1] + 1))
        {
            end++;
        }

        var deltas = ImmutableArray.CreateBuilder<ReadOnlyMemory<byte>>(end - 1 - whole);
        for (var i = whole + 1; i < end; i++)
        {
            deltas.Add(versions.Values[i].State);
        }

        return (new CommittedState(versions.Keys[end - 1], whole < 0 ? ReadOnlyMemory<byte>.Empty : versions.Values[whole].State, deltas.MoveToImmutable()), end);
    }
}

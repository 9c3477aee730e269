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
        var whole = versions.Count - 1;
        while (whole >= 0 && versions.Values[whole].Delta)
        {
            whole--;
        }

        if (whole < 0 && versions.Keys[0] != 1)
        {
            throw new InvalidDataException(
                $"The log holds committed changes to actor {actor}'s state from version {versions.Keys[0]} but no whole state before them: records are missing.");
        }

        var deltas = ImmutableArray.CreateBuilder<ReadOnlyMemory<byte>>(versions.Count - 1 - whole);
        for (var i = whole + 1; i < versions.Count; i++)
        {
            var expected = i == 0 ? 1 : versions.Keys[i - 1] + 1;
            if (versions.Keys[i] != expected)
            {
                throw new InvalidDataException(
                    $"The log holds a committed change to actor {actor}'s state at version {versions.Keys[i]} but none at version {expected}: records are missing.");
            }

            deltas.Add(versions.Values[i].State);
        }

        return new CommittedState(versions.Keys[^1], whole < 0 ? ReadOnlyMemory<byte>.Empty : versions.Values[whole].State, deltas.MoveToImmutable());
    }
}

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
/// version 1, and otherwise a state at rest (a checkpoint moved the versions below them to the
/// store of states at rest and truncated them, docs/architecture.md, "Checkpoints"): the chain says
/// so with a state <see cref="CommittedState.OnBaseAtRest"/>, which the reader completes with the
/// actor's row.
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

    /// <summary>
    /// The newest committed state: the last version, built on the whole state at or below it that
    /// the deltas in between reach version by version; where a gap comes first, on a state at rest
    /// (<see cref="CommittedState.OnBaseAtRest"/>) that whoever reads it completes from the actor's
    /// row or another holder, or refuses (records are missing). A gap is what a checkpoint leaves
    /// where it moved versions to the store, and what a scan of logs others append to leaves where
    /// it missed a decision: the versions past it are committed either way (their decisions were
    /// read, and a version's base commits first).
    /// </summary>
    public CommittedState Last() => Chain(versions.Count);

    /// <summary>
    /// The state at <paramref name="version"/> exactly, from the versions up to it (a chain that
    /// keeps its history); null if no record of that version was read.
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

        return versions.Keys[count - 1] == version ? Chain(count) : null;
    }

    // Over the first `count` versions: the newest and the run of versions below it that follow
    // each other, down to a whole state (the base), or to a gap or the first version read (the
    // base is the version below: the initial state below version 1, else one at rest).
    private CommittedState Chain(int count)
    {
        var first = count - 1;
        while (first > 0 && versions.Values[first].Delta && versions.Keys[first - 1] == versions.Keys[first] - 1)
        {
            first--;
        }

        var whole = !versions.Values[first].Delta;
        var deltas = ImmutableArray.CreateBuilder<ReadOnlyMemory<byte>>(count - first - (whole ? 1 : 0));
        for (var i = whole ? first + 1 : first; i < count; i++)
        {
            deltas.Add(versions.Values[i].State);
        }

        return new CommittedState(versions.Keys[count - 1], whole ? versions.Values[first].State : ReadOnlyMemory<byte>.Empty, deltas.MoveToImmutable());
    }
}

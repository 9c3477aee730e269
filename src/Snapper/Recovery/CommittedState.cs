using System.Collections.Immutable;
using Snapper.Protocol;

namespace Snapper.Recovery;

/// <summary>
/// An actor's last committed state, serialized, and its version on the actor. For an
/// <see cref="IDeltaState{TSelf, TDelta}"/> state read from the logs, <see cref="State"/> may be an
/// older whole state that <see cref="Deltas"/>, applied in order, bring up to <see cref="Version"/>
/// (an empty <see cref="State"/> with deltas: the actor's initial state, version 0).
/// <see cref="Undecided"/>: writes a deactivated activation had prepared for ACTs not decided then;
/// <see cref="Batches"/>: the PACT batches it had not seen committed; <see cref="Outcomes"/>: how the
/// ACTs rooted there ended, for participants that may still ask (docs/architecture.md, "An activation goes");
/// <see cref="Committed"/>: ACTs lately committed there, whose Commit sent again is no news.
/// </summary>
[GenerateSerializer, Immutable]
internal readonly record struct CommittedState(
    [property: Id(0)] long Version,
    [property: Id(1)] ReadOnlyMemory<byte> State,
    [property: Id(2)] ImmutableArray<ReadOnlyMemory<byte>> Deltas = default,
    [property: Id(3)] ImmutableArray<PreparedWrite> Undecided = default,
    [property: Id(4)] Protocol.PactHandover? Batches = null,
    [property: Id(5)] ImmutableArray<Protocol.RememberedOutcome> Outcomes = default,
    [property: Id(6)] ImmutableArray<long> Committed = default)
{
    /// <summary>
    /// The place in the actor's chain of activations of the one that left this state (a row of
    /// <see cref="StatesAtRest"/> orders writes of one version by it: the later activation knew more).
    /// </summary>
    [Id(7)]
    public long Sequence { get; init; }

    /// <summary>The version of the whole <see cref="State"/>, before the deltas.</summary>
    public long WholeVersion => Version - (Deltas.IsDefault ? 0 : Deltas.Length);

    /// <summary>
    /// What an activation starts from when two places hold a state for the actor (two silos, or a
    /// hand-over and the logs): the higher version, <paramref name="first"/> on a tie (the two are
    /// then the same state: writes on one actor are serial); and nothing else either carries is
    /// dropped. Prepared writes wait for their roots, so both sets are kept; outcomes are
    /// answered for a while, so both lists; batches were left on a committed state, so only from a
    /// holder of the winning version; the higher sequence.
    /// </summary>
    public static CommittedState Merge(CommittedState first, CommittedState second)
    {
        var winner = first.Version >= second.Version ? first : second;
        return winner with
        {
            Undecided = Union(first.Undecided, second.Undecided),
            Batches = (first.Version == winner.Version ? first.Batches : null) ?? (second.Version == winner.Version ? second.Batches : null),
            Outcomes = Concat(first.Outcomes, second.Outcomes),
            Committed = Concat(first.Committed, second.Committed),
            Sequence = Math.Max(first.Sequence, second.Sequence),
        };
    }

    private static ImmutableArray<T> Concat<T>(ImmutableArray<T> a, ImmutableArray<T> b) => a.IsDefaultOrEmpty ? b : b.IsDefaultOrEmpty ? a : a.AddRange(b);

    private static ImmutableArray<PreparedWrite> Union(ImmutableArray<PreparedWrite> a, ImmutableArray<PreparedWrite> b) =>
        a.IsDefaultOrEmpty ? b : b.IsDefaultOrEmpty ? a : [.. a.Concat(b).DistinctBy(w => w.Tid)];
}

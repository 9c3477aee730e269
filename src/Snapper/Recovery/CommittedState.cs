using System.Collections.Immutable;
using Snapper.Protocol;

namespace Snapper.Recovery;

/// <summary>
/// An actor's last committed state, serialized, and its version on the actor. For an
/// <see cref="IDeltaState{TSelf, TDelta}"/> state read from the logs, <see cref="State"/> may be an
/// older whole state that <see cref="Deltas"/>, applied in order, bring up to <see cref="Version"/>
/// (an empty <see cref="State"/> with deltas: the actor's initial state, version 0, or a state at
/// rest that the logs no longer hold: <see cref="OnBaseAtRest"/>).
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
    /// Deltas whose whole state a checkpoint moved from the logs to the store of states at rest:
    /// only with the actor's row (or any state of it from version <see cref="WholeVersion"/> on) is
    /// this a state (<see cref="Over"/>).
    /// </summary>
    public bool OnBaseAtRest => State.IsEmpty && WholeVersion > 0;

    /// <summary>
    /// This state (<see cref="OnBaseAtRest"/>) built on <paramref name="basis"/>, a whole state of the
    /// actor at a version from <see cref="WholeVersion"/> to <see cref="Version"/>: its state and
    /// deltas, then the deltas here past its version. Everything else stays as it is here.
    /// </summary>
    /// <exception cref="InvalidDataException"><paramref name="basis"/> is older than the deltas' base: records are missing.</exception>
    public CommittedState Over(CommittedState basis)
    {
        if (basis.OnBaseAtRest || basis.Version < WholeVersion || basis.Version > Version)
        {
            throw new InvalidDataException(
                $"changes to the state from version {WholeVersion + 1} need a whole state at version {WholeVersion} or later, but the one found is at version {basis.Version}{(basis.OnBaseAtRest ? " and itself has none" : "")}: records are missing.");
        }

        var past = Deltas.IsDefault ? [] : Deltas[(int)(basis.Version - WholeVersion)..];
        var under = basis.Deltas.IsDefault ? [] : basis.Deltas;
        return this with { State = basis.State, Deltas = under.AddRange(past) };
    }

    /// <summary>
    /// What an activation starts from when two places hold a state for the actor (two silos, or a
    /// hand-over and the logs): the higher version, <paramref name="first"/> on a tie (the two are
    /// then the same state: writes on one actor are serial); and nothing else either carries is
    /// dropped. Prepared writes wait for their roots, so both sets are kept; outcomes are
    /// answered for a while, so both lists; batches were left on a committed state, so only from a
    /// holder of the winning version; the higher sequence. A winner <see cref="OnBaseAtRest"/> is
    /// built on the other if it can be (else it stays so, for the actor's row to complete).
    /// </summary>
    public static CommittedState Merge(CommittedState first, CommittedState second)
    {
        var (winner, other) = first.Version >= second.Version ? (first, second) : (second, first);
        if (winner.OnBaseAtRest && !other.OnBaseAtRest && other.Version >= winner.WholeVersion)
        {
            winner = winner.Over(other);
        }

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

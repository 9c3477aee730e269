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
/// ACTs rooted there ended, for participants that may still ask (docs/architecture.md, "An activation goes").
/// </summary>
[GenerateSerializer, Immutable]
internal readonly record struct CommittedState(
    [property: Id(0)] long Version,
    [property: Id(1)] ReadOnlyMemory<byte> State,
    [property: Id(2)] ImmutableArray<ReadOnlyMemory<byte>> Deltas = default,
    [property: Id(3)] ImmutableArray<PreparedWrite> Undecided = default,
    [property: Id(4)] Protocol.PactHandover? Batches = null,
    [property: Id(5)] ImmutableArray<Protocol.RememberedOutcome> Outcomes = default)
{
    /// <summary>The version of the whole <see cref="State"/>, before the deltas.</summary>
    public long WholeVersion => Version - (Deltas.IsDefault ? 0 : Deltas.Length);
}

using System.Collections.Immutable;

namespace Snapper.Protocol;

/// <summary>
/// An actor's answer to AbortPact (actor → the aborted PACT's coordinator): whether the PACT's
/// writes there were taken back (<see cref="Undone"/>; false when an ACT read them or the state
/// without them could not be logged, so the whole batch must abort) and the PACTs that had read them (<see cref="Readers"/>), whose writes
/// there went with them and which must abort too.
/// </summary>
[GenerateSerializer, Immutable]
internal sealed record PactAbortAnswer([property: Id(0)] bool Undone, [property: Id(1)] ImmutableArray<PactRef> Readers)
{
    /// <summary>Nothing of it was left, and nobody had read it.</summary>
    public static readonly PactAbortAnswer Clean = new(true, []);

    /// <summary>Its writes cannot be taken back alone (an ACT read them, or the state without them could not be logged): only aborting its whole batch does.</summary>
    public static readonly PactAbortAnswer NotUndone = new(false, []);
}

using Snapper.Serialization;

namespace Snapper.State;

/// <summary>
/// How one activation writes its actor's states to the log: whole, or, for an
/// <see cref="IDeltaState{TSelf, TDelta}"/> state, as the change from the version it was built from.
/// </summary>
/// <remarks>
/// Recovery rebuilds a delta-logged state from the last whole state below it, so the activation
/// writes a whole state first, and again once the deltas written since add up to the size of the
/// last whole one: the log grows by at most twice the deltas, and recovery applies at most as many
/// deltas as fit in one whole state. A write that did not reach the log (<see cref="Failed"/>) may
/// have been the whole state the deltas after it need, so the next is whole again. Owned by one
/// actor; touched only inside its turns.
/// </remarks>
internal sealed class StateLogForm<TState>
    where TState : class
{
    // Counted per delta besides its bytes, so tiny deltas of a tiny state do not pile up unboundedly.
    private const int RecordOverhead = 64;

    private long wholeBytes;
    private long deltaBytesSinceWhole;
    private bool wholeWritten;

    /// <summary>
    /// <paramref name="after"/> as it is to be logged, built from <paramref name="before"/> (the
    /// state of the version before it; null if unknown, which logs it whole).
    /// </summary>
    public (ReadOnlyMemory<byte> State, bool Delta) Encode(IStateSerializer serializer, TState? before, TState after)
    {
        if (StateDeltas<TState>.Kind is { } deltas && before is not null && wholeWritten && deltaBytesSinceWhole < wholeBytes)
        {
            var delta = deltas.Delta(serializer, before, after);
            deltaBytesSinceWhole += delta.Length + RecordOverhead;
            return (delta, true);
        }

        var whole = serializer.Serialize(after);
        wholeWritten = true;
        wholeBytes = whole.Length;
        deltaBytesSinceWhole = 0;
        return (whole, false);
    }

    /// <summary>A state encoded here did not reach the log: the next is written whole.</summary>
    public void Failed() => wholeWritten = false;
}

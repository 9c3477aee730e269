using Snapper.Serialization;

namespace Snapper.State;

/// <summary>
/// How one activation writes its actor's states to the log: whole, or, for an
/// <see cref="IDeltaState{TSelf, TDelta}"/> state, as the change from the version it was built from.
/// </summary>
/// <remarks>
/// <para>Any committed delta is exact to recover: it was built on the committed version before it,
/// whose record (whole or delta) is in the logs, and so on down to a whole state or to the actor's
/// initial state (LogEvaluation). So the choice here bounds cost, not correctness: an activation
/// writes a whole state first (it does not know how many deltas its predecessors wrote), and again
/// once the deltas written since add up to the size of the last whole one. The log then grows by at
/// most about twice the deltas, and recovery applies about one whole state's worth of them.</para>
/// <para>Owned by one actor; touched only inside its turns.</para>
/// </remarks>
internal sealed class StateLogForm<TState>
    where TState : class
{
    // Counted per delta besides its bytes, so tiny deltas of a tiny state do not pile up unboundedly.
    private const int RecordOverhead = 64;

    private long wholeBytes; // 0 until this activation wrote a whole state: the first is whole
    private long deltaBytesSinceWhole;

    /// <summary>
    /// <paramref name="after"/> as it is to be logged, built from <paramref name="before"/> (the
    /// state of the version before it; null if unknown, which logs it whole).
    /// </summary>
    public (ReadOnlyMemory<byte> State, bool Delta) Encode(IStateSerializer serializer, TState? before, TState after)
    {
        if (StateDeltas<TState>.Kind is { } deltas && before is not null && deltaBytesSinceWhole < wholeBytes)
        {
            var delta = deltas.Delta(serializer, before, after);
            deltaBytesSinceWhole += delta.Length + RecordOverhead;
            return (delta, true);
        }

        var whole = serializer.Serialize(after);
        wholeBytes = whole.Length;
        deltaBytesSinceWhole = 0;
        return (whole, false);
    }
}

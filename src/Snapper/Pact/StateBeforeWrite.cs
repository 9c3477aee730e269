using Snapper.Serialization;
using Snapper.State;

namespace Snapper.Pact;

/// <summary>
/// The state before a PACT's first write in its batch on an actor, kept so the PACT's abort can
/// take the write back: a copy of the state, or, for an <see cref="IDeltaState{TSelf, TDelta}"/>
/// state, the batch's base state and the change the batch had made to it by then. A delta costs
/// O(the batch's changes) per PACT where a copy costs O(state); the state is rebuilt only on an abort.
/// </summary>
internal readonly record struct StateBeforeWrite<TState>(TState State, byte[]? ChangeFromState)
    where TState : class
{
    /// <summary>What <paramref name="working"/> (built from <paramref name="batchBase"/>, if known) is now, kept as cheaply as its type allows.</summary>
    public static StateBeforeWrite<TState> Of(IStateSerializer serializer, TState? batchBase, TState working) =>
        StateDeltas<TState>.Kind is { } deltas && batchBase is not null
            ? new(batchBase, deltas.Delta(serializer, batchBase, working))
            : new(serializer.Copy(working), null);

    /// <summary>The state before the write, to go on from (a fresh object: the caller may change it).</summary>
    public TState Restore(IStateSerializer serializer) =>
        ChangeFromState is null ? State : StateDeltas<TState>.Kind!.AppliedToCopy(serializer, State, ChangeFromState);
}

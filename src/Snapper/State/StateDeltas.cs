using Snapper.Serialization;

namespace Snapper.State;

/// <summary>
/// The deltas of a state type that implements <see cref="IDeltaState{TSelf, TDelta}"/>, serialized
/// with the state's serializer (<see cref="StateLogForm{TState}"/> chooses when to log one). One per
/// state type, found once by reflection.
/// </summary>
internal abstract class StateDeltas<TState>
    where TState : class
{
    /// <summary>The state type's deltas, or null if it logs whole states only.</summary>
    public static readonly StateDeltas<TState>? Kind = Create();

    /// <summary>The change from <paramref name="before"/> to <paramref name="after"/>, serialized.</summary>
    public abstract byte[] Delta(IStateSerializer serializer, TState before, TState after);

    /// <summary>Applies a serialized change to <paramref name="state"/> (changed in place) and returns it.</summary>
    public abstract TState Apply(IStateSerializer serializer, TState state, ReadOnlySpan<byte> delta);

    /// <summary>A copy of <paramref name="state"/> with a serialized change applied; <paramref name="state"/> is left as it was.</summary>
    public TState AppliedToCopy(IStateSerializer serializer, TState state, ReadOnlySpan<byte> delta) => Apply(serializer, serializer.Copy(state), delta);

    private static StateDeltas<TState>? Create()
    {
        var contract = typeof(TState).GetInterfaces()
            .FirstOrDefault(i => i.IsGenericType && i.GetGenericTypeDefinition() == typeof(IDeltaState<,>) && i.GetGenericArguments()[0] == typeof(TState));
        return contract is null
            ? null
            : (StateDeltas<TState>)Activator.CreateInstance(typeof(DeltaStateCodec<,>).MakeGenericType(typeof(TState), contract.GetGenericArguments()[1]))!;
    }
}

/// <summary>The deltas of a state type that implements <see cref="IDeltaState{TSelf, TDelta}"/>.</summary>
internal sealed class DeltaStateCodec<TState, TDelta> : StateDeltas<TState>
    where TState : class, IDeltaState<TState, TDelta>
{
    public override byte[] Delta(IStateSerializer serializer, TState before, TState after) => serializer.Serialize(after.DeltaFrom(before));

    public override TState Apply(IStateSerializer serializer, TState state, ReadOnlySpan<byte> delta)
    {
        state.Apply(serializer.Deserialize<TDelta>(delta));
        return state;
    }
}

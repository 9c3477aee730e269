namespace Snapper;

/// <summary>
/// A state whose writes Snapper logs as the change they made instead of the whole state, for a
/// state that grows (a list appended to, a ledger): logging the whole state would make every
/// transaction cost O(state). Implement it on the state class of a <see cref="TransactionalActor{TState}"/>.
/// </summary>
/// <typeparam name="TSelf">The state class itself.</typeparam>
/// <typeparam name="TDelta">A change: serializable like the state (with the same serializer).</typeparam>
/// <remarks>
/// <para>Recovery rebuilds the state from the last whole state logged and the changes after it,
/// applied in order, so the two methods must agree exactly: for any <c>before</c> and the state
/// <c>after</c> a transaction made from a copy of it, a copy of <c>before</c> with
/// <c>after.DeltaFrom(before)</c> applied must equal <c>after</c>. Snapper logs the whole state now
/// and then (first in each activation, and whenever the changes logged since add up to the whole
/// state's size), so recovery applies a bounded number of changes.</para>
/// <para>Both are called inside the actor's turn, on states no transaction is changing.</para>
/// </remarks>
public interface IDeltaState<TSelf, TDelta>
    where TSelf : class, IDeltaState<TSelf, TDelta>
{
    /// <summary>The change that turns <paramref name="before"/> into this state (which a transaction made from a copy of it).</summary>
    TDelta DeltaFrom(TSelf before);

    /// <summary>Applies <paramref name="delta"/>, which <see cref="DeltaFrom"/> returned for a state equal to this one.</summary>
    void Apply(TDelta delta);
}

namespace Snapper;

/// <summary>Which after-commit action an <see cref="IAfterCommitHandler{TMessage}"/> is handed, and which attempt this is.</summary>
/// <param name="Id">
/// Stable across every delivery of the action, on any silo, after any crash: <c>{tid}/{actor}/{n}</c>
/// (the transaction, the actor that registered it, and its place among that transaction's actions
/// there). What a handler drops repeats by.
/// </param>
/// <param name="Tid">The committed transaction that registered it.</param>
/// <param name="Actor">The actor that registered it.</param>
/// <param name="Attempt">1 for the first try on this silo since it started; a delivery after a restart starts at 1 again.</param>
public sealed record AfterCommitContext(string Id, long Tid, ActorId Actor, int Attempt);

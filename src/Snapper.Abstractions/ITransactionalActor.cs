namespace Snapper;

/// <summary>
/// Marker for the interface of an actor whose implementation inherits
/// <c>Snapper.TransactionalActor&lt;TState&gt;</c>. Its methods take a <see cref="TxnContext"/> first.
/// </summary>
public interface ITransactionalActor : IActor
{
}

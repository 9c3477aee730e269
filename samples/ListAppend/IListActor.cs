using Snapper;

namespace ListAppend;

/// <summary>An actor holding one list of tids.</summary>
public interface IListActor : ITransactionalActor, IGrainWithIntegerKey
{
    /// <summary>
    /// Appends the transaction's tid; returns what the list looked like before. With
    /// <paramref name="announce"/>, registers an <see cref="Appended"/> after-commit action too.
    /// </summary>
    Task<AppendResult> Append(TxnContext ctx, bool announce = false);

    /// <summary>
    /// Appends here and, in parallel, on every actor of <paramref name="others"/>: the whole
    /// transaction of the workload, started on its first actor.
    /// </summary>
    Task<AppendResult[]> AppendEverywhere(TxnContext ctx, ActorId[] others, bool announce = false);

    /// <summary>
    /// As <see cref="AppendEverywhere"/>, then rolls the transaction back
    /// (<see cref="AbortReason.User"/>): none of its appends may ever be seen.
    /// </summary>
    Task<AppendResult[]> AppendEverywhereThenRollBack(TxnContext ctx, ActorId[] others, bool announce = false);

    /// <summary>
    /// Runs <paramref name="node"/> of a nested transaction here: appends the tid unless this
    /// transaction already did on this actor (a tree may come back to it), then makes the node's
    /// calls; returns the first append on each actor of its subtree.
    /// </summary>
    Task<AppendResult[]> Visit(TxnContext ctx, CallTree node);

    /// <summary>The whole list (read-only).</summary>
    Task<List<long>> Read(TxnContext ctx);
}

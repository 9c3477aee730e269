using Snapper.Hybrid;

namespace Snapper.Act;

/// <summary>
/// What the runtime asks of a transactional actor. Every member runs inside the actor's turn
/// (see <see cref="Actors.ActorActivation"/>); messages are described sender → receiver.
/// </summary>
internal interface IActParticipant
{
    /// <summary>Client or grain → first actor: run <paramref name="body"/> as a new ACT and commit it (this actor is the 2PC coordinator).</summary>
    Task<TResult> RunAsRoot<TActor, TResult>(Func<TActor, TxnContext, Task<TResult>> body, bool earlyLockRelease, CancellationToken cancellationToken);

    /// <summary>Caller actor → callee (CallActor): run <paramref name="call"/> in the transaction; returns the callee's execution info.</summary>
    Task<(TResult Result, ExecutionInfo Info)> Invoke<TActor, TResult>(TxnContext ctx, Func<TActor, Task<TResult>> call);

    /// <summary>
    /// Root → participant, 2PC phase one, after the serializability check. A writer logs Prepare
    /// (durable before the vote). With <paramref name="earlyLockRelease"/> it first releases its
    /// locks and exposes its prepared state to later ACTs, which take a commit dependency on it.
    /// </summary>
    Task<Vote> Prepare(long tid, HybridDecision decision, bool earlyLockRelease);

    /// <summary>Root → participant that voted yes, after CoordCommit is durable.</summary>
    Task Commit(long tid, HybridDecision decision);

    /// <summary>Root → the only writer of the transaction: log and commit in one phase.</summary>
    Task CommitOnePhase(long tid, HybridDecision decision);

    /// <summary>Root → participant: roll back. Not logged (presumed abort).</summary>
    Task Abort(long tid);
}

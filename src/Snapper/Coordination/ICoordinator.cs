using System.Collections.Immutable;
using Snapper.Logging;
using Orleans.Concurrency;
using Snapper.Protocol;

namespace Snapper.Coordination;

/// <summary>
/// A coordinator of the PACT token ring (Snapper §4.1.1, §4.2), as a grain bound to one silo
/// (key <see cref="CoordinatorKey"/>). Each message says who sends it and whether it waits.
/// </summary>
internal interface ICoordinator : IGrainWithStringKey
{
    /// <summary>
    /// Coordinator → next coordinator (or the ring membership, once, to start the ring): the token,
    /// with the number of this pass (<see cref="BatchToken.Passes"/> when it was sent; a separate
    /// argument because the token itself is not copied within a silo and its holders move it on).
    /// The sender passes again if the call fails, though it may have been delivered: the receiver
    /// takes each pass once.
    /// </summary>
    Task PassToken(BatchToken token, long pass);

    /// <summary>Ring membership → every coordinator: the ring changed (answered once taken in).</summary>
    Task UpdateView(RingView view);

    /// <summary>Coordinator → every other coordinator, one-way: "the token is parked with me" (an idle ring).</summary>
    [OneWay]
    Task TokenParked(string holder, long parkings);

    /// <summary>Coordinator with work → the coordinator where the token is parked, one-way: move it again.</summary>
    [OneWay]
    Task Wake();

    /// <summary>
    /// NewPact, first actor's silo (or a client) → coordinator: completes with the PACT's context
    /// (tid, bid) once the token has put it in a batch (the batch's BatchInfo is written alongside its BatchMsgs, not waited for).
    /// </summary>
    Task<TxnContext> NewPact(ActorId root, AccessSet declared);

    /// <summary>A silo's or client's tid source → coordinator: <paramref name="count"/> ACT tids from the token (§4.3.1).</summary>
    Task<TidRange> AllocateActTids(int count);

    /// <summary>
    /// BatchComplete, actor → the batch's coordinator, one-way: the batch completed there and its
    /// state is durable; with the after-commit actions its PACTs registered there.
    /// </summary>
    [OneWay]
    Task BatchComplete(long bid, ActorId actor, ImmutableArray<AfterCommitAction> actions);

    /// <summary>
    /// Actor → the batch's coordinator: the actor's sub-batch of batch <paramref name="bid"/>, asked
    /// for when a call of the batch reached the actor before its BatchMsg (delayed, or lost to a
    /// going activation). Null once the actor has completed the batch there or the batch is no
    /// longer waiting for completions (committing, aborting, resolved): then the actor waits as
    /// before. The actor takes whichever copy comes first; the other is a duplicate.
    /// </summary>
    Task<SubBatch?> SubBatchOf(long bid, ActorId actor);

    /// <summary>
    /// Actor → the batch's coordinator: PACT <paramref name="tid"/> of batch <paramref name="bid"/>
    /// failed, so it aborts, alone if nobody read its writes; 0: the whole batch failed, so it and
    /// every batch after it abort. Answered at once; the actor sends its BatchComplete only after.
    /// </summary>
    Task Fail(long bid, long tid, Exception cause);

    /// <summary>
    /// Coordinator that sealed an abort cascade → every other coordinator, one-way: its batches up
    /// to <paramref name="through"/> that failed abort with that cascade (emission is paused until it ends).
    /// </summary>
    [OneWay]
    Task CascadeSealed(long through);

    /// <summary>
    /// Next batch's coordinator, or an ACT root that read the batch's state → the batch's
    /// coordinator: completes once batch <paramref name="bid"/> (and so every batch before it) is
    /// resolved, saying how.
    /// </summary>
    Task<BatchOutcome> WaitResolved(long bid);

    /// <summary>
    /// Next batch's coordinator → the batch's coordinator: completes once batch
    /// <paramref name="bid"/> is decided — committed as soon as it decided to commit (its
    /// BatchCommit may not be durable yet), aborted once it has resolved aborted.
    /// </summary>
    Task<BatchOutcome> WaitDecided(long bid);

    /// <summary>
    /// Ring membership → every surviving coordinator, when silo <paramref name="silo"/> departed
    /// (docs/architecture.md, "A silo dies"): drop the token and every token of a view older than
    /// <paramref name="epoch"/> (a new one comes with the new view), and abort the own batches not
    /// decided yet. Returns the highest tid this coordinator knows may have been handed out.
    /// </summary>
    Task<long> Halt(string silo, long epoch);

    /// <summary>
    /// Ring membership → every surviving coordinator, once the failover is sealed: the batches
    /// aborted at <see cref="Halt"/> end their cascade at <paramref name="through"/>, the last bid
    /// handed out before the ring halted.
    /// </summary>
    Task FailOver(long through);

    /// <summary>Ring membership (rebuilding itself) and tests → coordinator: what it knows.</summary>
    Task<CoordinatorStatus> Status();
}

using Snapper.Protocol;

namespace Snapper.Scheduling;

/// <summary>
/// The PACT engine as the local schedule calls it, in the actor's turn, when a batch starts or
/// completes here, when the turn of a PACT that aborted has ended (its writes can be taken back),
/// or when a call came before its batch's BatchMsg.
/// </summary>
internal interface IPactSide
{
    /// <summary>
    /// A call of <paramref name="ctx"/>'s PACT came before the BatchMsg of its batch, which is not
    /// here in any form: the call waits for it; the engine may ask the coordinator for it.
    /// </summary>
    void BatchNotArrived(TxnContext ctx);

    void BatchStarted(SubBatch batch);

    void BatchCompleted(SubBatch batch);

    void AbortedTurnEnded(ScheduledPact pact);
}

/// <summary>
/// The ACT engine as the local schedule calls it, in the actor's turn: a batch started here (so
/// batches have run on this actor), or batch <c>bid</c> was placed right after an ACT group whose
/// ACTs now have that batch after them.
/// </summary>
internal interface IActSide
{
    void BatchStarted(SubBatch batch);

    void BatchPlacedBehind(ActGroup group, long bid);
}

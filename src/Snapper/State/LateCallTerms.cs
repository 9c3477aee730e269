namespace Snapper.State;

/// <summary>
/// What a PACT's caller asks a callee whose answer is late (<see cref="LateAnswers"/>): the batch
/// of the call, and whether the callee may refuse the call ahead if it has not reached it yet.
/// </summary>
/// <param name="Bid">The batch of the PACT that made the call.</param>
/// <param name="RefuseAheadFor">
/// On a PACT's first runs (<c>TxnContext.GivesUpLateCalls</c>), the coordinator of its batch, which
/// a callee that refuses the call ahead tells: the PACT then aborts (<see cref="AbortReason.LateCall"/>)
/// and runs again instead of every batch behind it on both actors waiting for the call. Else null.
/// </param>
internal readonly record struct LateCallTerms(long Bid, string? RefuseAheadFor)
{
    /// <summary>True if the callee may refuse the call ahead.</summary>
    public bool MayRefuseAhead => RefuseAheadFor is not null;
}

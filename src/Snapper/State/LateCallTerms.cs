namespace Snapper.State;

/// <summary>
/// What a PACT's caller asks a callee whose answer is late (<see cref="LateAnswers"/>): the batch
/// of the call, and whether the callee may refuse the call ahead if it has not reached it yet.
/// </summary>
/// <param name="Bid">The batch of the PACT that made the call.</param>
/// <param name="Coordinator">The coordinator of that batch, which a callee that refuses the call ahead tells.</param>
/// <param name="MayRefuseAhead">
/// True on a PACT's first run (<c>TxnContext.GivesUpLateCalls</c>): a call still on its way may be
/// refused ahead, so the PACT aborts (<see cref="AbortReason.LateCall"/>) and runs again instead of
/// every batch behind it on both actors waiting for the call.
/// </param>
internal readonly record struct LateCallTerms(long Bid, string? Coordinator, bool MayRefuseAhead);

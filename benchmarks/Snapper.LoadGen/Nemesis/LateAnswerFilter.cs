namespace Snapper.LoadGen.Nemesis;

/// <summary>
/// <c>--nemesis timeout</c> on an embedded silo: while the nemesis is on, a small share of the calls
/// this silo serves keep their answer past the (lowered) response timeout after the work is done,
/// as a GC pause or a slow disk would. The caller's timer runs from when it sent the call, so it
/// gives up first: the callee did the work, the caller was told it timed out. Held in the callee's
/// turn, so the actor answers nothing else meanwhile (unless it is reentrant).
/// </summary>
public sealed class LateAnswerFilter(CallFaults faults) : IIncomingGrainCallFilter
{
    /// <inheritdoc />
    public async Task Invoke(IIncomingGrainCallContext context)
    {
        ArgumentNullException.ThrowIfNull(context);
        await context.Invoke();
        if (faults.NextHold() is { } hold)
        {
            await Task.Delay(hold);
        }
    }
}

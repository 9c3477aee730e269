namespace Snapper.LoadGen.Nemesis;

/// <summary>
/// <c>--nemesis delay</c> on an embedded silo: while the nemesis is on, a share of the grain calls
/// this silo sends wait a few to a few hundred milliseconds before they go (a slow network, a busy
/// sender), so messages reach actors in orders and at times a calm cluster never shows. Also counts
/// the calls that ended in Orleans' response timeout (<c>timeout</c>).
/// </summary>
public sealed class DelayingCallFilter(CallFaults faults) : IOutgoingGrainCallFilter
{
    /// <inheritdoc />
    public async Task Invoke(IOutgoingGrainCallContext context)
    {
        ArgumentNullException.ThrowIfNull(context);
        if (faults.NextDelay() is { } delay)
        {
            await Task.Delay(delay);
        }

        try
        {
            await context.Invoke();
        }
        catch (TimeoutException)
        {
            faults.CountTimeout();
            throw;
        }
    }
}

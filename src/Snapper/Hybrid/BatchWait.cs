namespace Snapper.Hybrid;

/// <summary>An ACT's wait for a PACT batch (§4.4.1–4.4.2): it ends when the batch is ready, when the wait is doomed, or at the deadlock timeout.</summary>
/// <remarks>
/// The end is returned, not thrown: an ACT that cannot wait is aborted, and under contention that
/// is the common case, so the caller builds the abort (and its message) only then and passes it on
/// as a value (docs/architecture.md, "Aborts are values inside Snapper").
/// </remarks>
internal static class BatchWait
{
    /// <summary>
    /// Whichever comes first: <paramref name="ready"/> (rethrowing its failure, if it failed),
    /// <paramref name="doomed"/>, or <paramref name="timeout"/>.
    /// </summary>
    public static async Task<BatchWaitEnd> Until(Task ready, Task doomed, TimeSpan timeout, TimeProvider clock)
    {
        using var stopTimer = new CancellationTokenSource();
        try
        {
            var timer = Task.Delay(timeout, clock, stopTimer.Token);
            var first = await Task.WhenAny(ready, doomed, timer);
            if (first == ready)
            {
                await ready;
                return BatchWaitEnd.Ready;
            }

            return first == doomed ? BatchWaitEnd.Doomed : BatchWaitEnd.TimedOut;
        }
        finally
        {
            stopTimer.Cancel();
        }
    }
}

namespace Snapper.Hybrid;

/// <summary>An ACT's wait for a PACT batch (§4.4.1–4.4.2): it ends when the batch is ready, when the wait is doomed, or at the deadlock timeout.</summary>
internal static class BatchWait
{
    /// <summary>
    /// Completes when <paramref name="ready"/> does (rethrowing its failure); throws what
    /// <paramref name="violation"/> makes if <paramref name="doomed"/> completes first, and
    /// <paramref name="timedOut"/> after <paramref name="timeout"/>.
    /// </summary>
    public static async Task Until(Task ready, Task doomed, TimeSpan timeout, TimeProvider clock, Func<Exception> violation, Exception timedOut)
    {
        using var stopTimer = new CancellationTokenSource();
        try
        {
            var timer = Task.Delay(timeout, clock, stopTimer.Token);
            var first = await Task.WhenAny(ready, doomed, timer);
            if (first == ready)
            {
                await ready;
                return;
            }

            throw first == doomed ? violation() : timedOut;
        }
        finally
        {
            stopTimer.Cancel();
        }
    }
}

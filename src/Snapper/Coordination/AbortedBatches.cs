namespace Snapper.Coordination;

/// <summary>
/// A coordinator's own batches that aborted, with the end of their cascade, for
/// <see cref="ICoordinator.WaitResolved"/>. Each is kept for twice the transaction timeout, longer
/// than anyone can still ask; an own bid not found here is committed if this activation emitted it.
/// </summary>
internal sealed class AbortedBatches(TimeSpan keepFor)
{
    private readonly Dictionary<long, (long Through, DateTimeOffset At)> aborted = new();

    public void Add(long bid, long through, DateTimeOffset now)
    {
        aborted[bid] = (through, now);
        if (aborted.Count > 64)
        {
            foreach (var old in aborted.Where(kv => kv.Value.At < now - keepFor).Select(kv => kv.Key).ToList())
            {
                aborted.Remove(old);
            }
        }
    }

    /// <summary>The end of the cascade that took <paramref name="bid"/>, if it aborted.</summary>
    public bool TryGet(long bid, out long through)
    {
        var found = aborted.TryGetValue(bid, out var abort);
        through = abort.Through;
        return found;
    }
}

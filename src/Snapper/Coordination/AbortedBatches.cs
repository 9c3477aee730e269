namespace Snapper.Coordination;

/// <summary>
/// A coordinator's own batches that aborted, with how (the end of their cascade, where it started
/// and what its PACTs are told), for <see cref="ICoordinator.WaitResolved"/>. Each is kept for twice the transaction timeout, longer
/// than anyone can still ask; an own bid not found here is committed if this activation emitted it.
/// </summary>
internal sealed class AbortedBatches(TimeSpan keepFor)
{
    private readonly Dictionary<long, (Protocol.BatchOutcome Outcome, DateTimeOffset At)> aborted = new();

    public void Add(long bid, Protocol.BatchOutcome outcome, DateTimeOffset now)
    {
        aborted[bid] = (outcome, now);
        if (aborted.Count > 64)
        {
            foreach (var old in aborted.Where(kv => kv.Value.At < now - keepFor).Select(kv => kv.Key).ToList())
            {
                aborted.Remove(old);
            }
        }
    }

    /// <summary>How <paramref name="bid"/> aborted, if it did.</summary>
    public bool TryGet(long bid, out Protocol.BatchOutcome outcome)
    {
        var found = aborted.TryGetValue(bid, out var abort);
        outcome = abort.Outcome;
        return found;
    }
}

namespace Snapper.Scheduling;

/// <summary>
/// PACTs whose turns are skipped when their batch starts here, because before it did they aborted
/// or were released (their bodies returned at their roots having called here fewer times than
/// declared), by bid.
/// </summary>
/// <remarks>Part of a <see cref="LocalSchedule"/>; touched only inside its actor's turns.</remarks>
internal sealed class SkippedTurns
{
    private readonly Dictionary<long, Dictionary<long, Exception>> aborted = new();
    private readonly Dictionary<long, HashSet<long>> released = new();

    /// <summary>Every PACT aborted before its batch started, with its cause (for a hand-over).</summary>
    public IEnumerable<(long Bid, long Tid, Exception Cause)> Aborted =>
        aborted.SelectMany(a => a.Value.Select(p => (a.Key, p.Key, p.Value)));

    /// <summary>Every PACT released before its batch started (for a hand-over).</summary>
    public IEnumerable<(long Bid, long Tid)> Released => released.SelectMany(r => r.Value.Select(tid => (r.Key, tid)));

    /// <summary>PACT <paramref name="tid"/> aborted; the first cause heard is kept.</summary>
    public void Abort(long bid, long tid, Exception cause)
    {
        if (!aborted.TryGetValue(bid, out var pacts))
        {
            aborted[bid] = pacts = new();
        }

        pacts.TryAdd(tid, cause);
    }

    public void Release(long bid, long tid)
    {
        if (!released.TryGetValue(bid, out var pacts))
        {
            released[bid] = pacts = [];
        }

        pacts.Add(tid);
    }

    public Exception? AbortedBy(long bid, long tid) =>
        aborted.TryGetValue(bid, out var pacts) ? pacts.GetValueOrDefault(tid) : null;

    /// <summary>Batches an abort cascade took: they never start here.</summary>
    public void Forget(Func<long, bool> batchAborted)
    {
        foreach (var bid in aborted.Keys.Where(batchAborted).ToList())
        {
            aborted.Remove(bid);
        }

        foreach (var bid in released.Keys.Where(batchAborted).ToList())
        {
            released.Remove(bid);
        }
    }

    /// <summary>Batch <paramref name="bid"/> starts: its skipped turns, if it has any.</summary>
    public bool Take(long bid, out Dictionary<long, Exception>? abortedPacts, out HashSet<long>? releasedPacts) =>
        aborted.Remove(bid, out abortedPacts) | released.Remove(bid, out releasedPacts);
}

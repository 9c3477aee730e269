namespace Snapper.Coordination;

/// <summary>
/// The one sequence of tids, shared by both modes: the coordinator holding the token takes a
/// PACT batch's tids from it, and silos take ranges of ACT tids from it (Snapper §4.3.1) so ACTs
/// never wait for the token. Tids only grow, so a smaller tid is an older transaction (wait-die) and
/// batches get increasing bids in the order the token forms them.
/// </summary>
/// <remarks>
/// The paper keeps lastTid in the token itself. In one process an atomic counter gives the same
/// mutual exclusion; across silos this becomes the token's field again.
/// </remarks>
internal sealed class TidAuthority
{
    private long lastTid;

    /// <summary>After a restart: never hand out <paramref name="tid"/> or anything below it again.</summary>
    public void AdvancePast(long tid)
    {
        long seen;
        while ((seen = Interlocked.Read(ref lastTid)) < tid && Interlocked.CompareExchange(ref lastTid, tid, seen) != seen)
        {
        }
    }

    /// <summary>The next <paramref name="count"/> tids, never handed out before.</summary>
    public TidRange AllocateRange(int count)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(count, 1);
        var last = Interlocked.Add(ref lastTid, count);
        return new TidRange(last - count + 1, count);
    }
}

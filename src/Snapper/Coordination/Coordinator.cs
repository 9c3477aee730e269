namespace Snapper.Coordination;

/// <summary>
/// The coordinator's tid authority (Snapper §4.3.1): hands out ranges of contiguous tids so that
/// ACTs get tids without waiting. Tids only grow, so a smaller tid is an older transaction, which
/// wait-die relies on. The PACT token ring (Snapper §4.2.1) will take over this role: the
/// coordinator holding the token pre-allocates the ACT ranges.
/// </summary>
internal sealed class Coordinator
{
    private long lastTid;

    /// <summary>The next <paramref name="count"/> tids, never handed out before.</summary>
    public TidRange AllocateActRange(int count)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(count, 1);
        var last = Interlocked.Add(ref lastTid, count);
        return new TidRange(last - count + 1, count);
    }
}

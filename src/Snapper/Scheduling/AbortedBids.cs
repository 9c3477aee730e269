using System.Collections.Immutable;

namespace Snapper.Scheduling;

/// <summary>
/// The bid ranges abort cascades took on one actor, disjoint and in bid order: their late messages
/// and calls are refused. Every batch of one cascade reports a range ending at the cascade's end,
/// so they merge into one range per cascade; the oldest are forgotten, as cascades are sequential.
/// </summary>
internal sealed class AbortedBids
{
    private const int Kept = 64;
    private readonly List<(long From, long Through)> ranges = new();

    /// <summary>The ranges, for a hand-over.</summary>
    public ImmutableArray<(long From, long Through)> Ranges => [.. ranges];

    /// <summary>True if a cascade took batch <paramref name="bid"/>.</summary>
    public bool Contains(long bid)
    {
        foreach (var (from, through) in ranges)
        {
            if (bid >= from && bid <= through)
            {
                return true;
            }
        }

        return false;
    }

    /// <summary>Batches <paramref name="from"/> through <paramref name="through"/> were aborted.</summary>
    public void Add(long from, long through)
    {
        var at = 0;
        while (at < ranges.Count && ranges[at].Through < from - 1)
        {
            at++;
        }

        // Merge every range that overlaps or touches [from, through].
        while (at < ranges.Count && ranges[at].From <= through + 1)
        {
            from = Math.Min(from, ranges[at].From);
            through = Math.Max(through, ranges[at].Through);
            ranges.RemoveAt(at);
        }

        ranges.Insert(at, (from, through));
        if (ranges.Count > Kept)
        {
            ranges.RemoveAt(0);
        }
    }
}

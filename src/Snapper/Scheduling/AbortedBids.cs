using System.Collections.Immutable;

namespace Snapper.Scheduling;

/// <summary>
/// The bid ranges abort cascades took on one actor, in bid order, each with what its
/// PACTs are told (<see cref="Protocol.BatchOutcome.Cascade"/>): their late messages and calls are
/// refused. Every batch of one cascade reports a range ending at the cascade's end, so they merge
/// into one range per cascade; the oldest are forgotten, as cascades are sequential.
/// </summary>
internal sealed class AbortedBids
{
    private const int Kept = 64;
    private readonly List<(long From, long Through, AbortReason Cascade)> ranges = new();

    /// <summary>The ranges, for a hand-over.</summary>
    public ImmutableArray<(long From, long Through, AbortReason Cascade)> Ranges => [.. ranges];

    /// <summary>True if a cascade took batch <paramref name="bid"/>.</summary>
    public bool Contains(long bid) => CascadeOf(bid) is not null;

    /// <summary>
    /// What the PACTs of batch <paramref name="bid"/> are told, if a cascade took it; else null.
    /// Where ranges that say different things cover it (a failover's abort over a cascade's), the
    /// one that does not let them run again.
    /// </summary>
    public AbortReason? CascadeOf(long bid)
    {
        AbortReason? told = null;
        foreach (var (from, through, cascade) in ranges)
        {
            if (bid >= from && bid <= through && told != AbortReason.Cascading)
            {
                told = cascade == AbortReason.LateCall ? AbortReason.LateCall : AbortReason.Cascading;
            }
        }

        return told;
    }

    /// <summary>Batches <paramref name="from"/> through <paramref name="through"/> were aborted in a cascade whose PACTs are told <paramref name="cascade"/>.</summary>
    public void Add(long from, long through, AbortReason cascade)
    {
        // Merge every range that says the same and overlaps or touches [from, through]: one
        // cascade's batches. A range that says otherwise stays beside it (two cascades take
        // different bids; a failover's abort may take some a cascade took).
        for (var i = ranges.Count - 1; i >= 0; i--)
        {
            if (ranges[i].Cascade == cascade && ranges[i].From <= through + 1 && ranges[i].Through >= from - 1)
            {
                from = Math.Min(from, ranges[i].From);
                through = Math.Max(through, ranges[i].Through);
                ranges.RemoveAt(i);
            }
        }

        var at = 0;
        while (at < ranges.Count && ranges[at].From < from)
        {
            at++;
        }

        ranges.Insert(at, (from, through, cascade));
        if (ranges.Count > Kept)
        {
            ranges.RemoveAt(0);
        }
    }
}

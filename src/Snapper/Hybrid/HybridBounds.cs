namespace Snapper.Hybrid;

/// <summary>
/// What an ACT learned about its place among PACT batches (Snapper §4.4.3, Definition 4.1), gathered
/// on each actor it reached and merged along the call tree into the root's execution info.
/// </summary>
/// <remarks>
/// Allocated only when an actor the ACT reached has seen a batch, so pure-ACT transactions carry none.
/// </remarks>
[GenerateSerializer]
internal sealed class HybridBounds
{
    [Id(0)]
    private List<long>? beforeBids;

    /// <summary>max(BeforeSet): the batches before the ACT on its actors, and the max(BeforeSet) of ACTs that preceded it there.</summary>
    [Id(1)]
    public long MaxBeforeBid { get; private set; }

    /// <summary>min(AfterSet) as far as known: the first batch placed after the ACT on each actor that has one (long.MaxValue: none known).</summary>
    [Id(2)]
    public long MinAfterBid { get; private set; } = long.MaxValue;

    /// <summary>
    /// The batches directly before the ACT on the actors it reached. It read their (possibly not yet
    /// committed) states, so each of them must commit before the ACT may.
    /// </summary>
    public IReadOnlyList<long> BeforeBids => (IReadOnlyList<long>?)beforeBids ?? [];

    /// <summary>One actor's view: the batch just before the ACT, the batch just after it, and the max(BeforeSet) of ACTs that committed there before.</summary>
    public void Add(long beforeBid, long afterBid, long precedingActsMaxBeforeBid)
    {
        if (beforeBid > 0)
        {
            beforeBids ??= new List<long>(2);
            if (!beforeBids.Contains(beforeBid))
            {
                beforeBids.Add(beforeBid);
            }
        }

        MaxBeforeBid = Math.Max(MaxBeforeBid, Math.Max(beforeBid, precedingActsMaxBeforeBid));
        if (afterBid > 0)
        {
            MinAfterBid = Math.Min(MinAfterBid, afterBid);
        }
    }

    public void Merge(HybridBounds other)
    {
        foreach (var bid in other.BeforeBids)
        {
            Add(bid, 0, 0);
        }

        MaxBeforeBid = Math.Max(MaxBeforeBid, other.MaxBeforeBid);
        MinAfterBid = Math.Min(MinAfterBid, other.MinAfterBid);
    }
}

namespace Snapper.Protocol;

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
    private List<BatchRef>? beforeBatches;

    /// <summary>max(BeforeSet): the batches before the ACT on its actors, and the max(BeforeSet) of ACTs that preceded it there.</summary>
    [Id(1)]
    public long MaxBeforeBid { get; private set; }

    /// <summary>min(AfterSet) as far as known: the first batch placed after the ACT on each actor that has one (long.MaxValue: none known).</summary>
    [Id(2)]
    public long MinAfterBid { get; private set; } = long.MaxValue;

    /// <summary>The actor where the batch of <see cref="MinAfterBid"/> was placed after the ACT (to name it when it is in the way).</summary>
    [Id(3)]
    public ActorId MinAfterActor { get; private set; }

    // The actor where each of beforeBatches was read, at the same index.
    [Id(4)]
    private List<ActorId>? beforeActors;

    /// <summary>
    /// The uncommitted batches directly before the ACT on the actors it reached. It read their
    /// states, so each of them must commit before the ACT may.
    /// </summary>
    public IReadOnlyList<BatchRef> BeforeBatches => (IReadOnlyList<BatchRef>?)beforeBatches ?? [];

    /// <summary>The actor where the ACT read the state of <paramref name="batch"/> (one of <see cref="BeforeBatches"/>).</summary>
    public ActorId WhereRead(BatchRef batch) => beforeBatches?.IndexOf(batch) is >= 0 and var i && beforeActors is { } actors && i < actors.Count ? actors[i] : default;

    /// <summary>
    /// One actor's view (<paramref name="actor"/>): the batch just before the ACT
    /// (<paramref name="before"/>, bid 0 for none; <paramref name="beforeCommitted"/> if it had
    /// already committed), the batch just after it, and the max(BeforeSet) of ACTs that committed
    /// there before.
    /// </summary>
    public void Add(ActorId actor, BatchRef before, bool beforeCommitted, long afterBid, long precedingActsMaxBeforeBid)
    {
        if (before.Bid > 0 && !beforeCommitted)
        {
            beforeBatches ??= new List<BatchRef>(2);
            if (!beforeBatches.Contains(before))
            {
                beforeBatches.Add(before);
                (beforeActors ??= new List<ActorId>(2)).Add(actor);
            }
        }

        MaxBeforeBid = Math.Max(MaxBeforeBid, Math.Max(before.Bid, precedingActsMaxBeforeBid));
        if (afterBid > 0 && afterBid < MinAfterBid)
        {
            (MinAfterBid, MinAfterActor) = (afterBid, actor);
        }
    }

    public void Merge(HybridBounds other)
    {
        foreach (var batch in other.BeforeBatches)
        {
            Add(other.WhereRead(batch), batch, beforeCommitted: false, 0, 0);
        }

        MaxBeforeBid = Math.Max(MaxBeforeBid, other.MaxBeforeBid);
        if (other.MinAfterBid < MinAfterBid)
        {
            (MinAfterBid, MinAfterActor) = (other.MinAfterBid, other.MinAfterActor);
        }
    }
}

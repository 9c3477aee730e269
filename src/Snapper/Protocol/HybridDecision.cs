namespace Snapper.Protocol;

/// <summary>
/// What an ACT's root sends with Prepare and Commit once the ACT passed its serializability check
/// (Snapper §4.4.3–4.4.4). Participants remember <see cref="MaxBeforeBid"/> for the ACTs that follow
/// it there, and apply the batch commits up to <see cref="CommittedBid"/> before the ACT's own
/// write, since the ACT may have been decided before their BatchCommit messages arrived.
/// </summary>
/// <param name="MaxBeforeBid">max(BeforeSet) of the ACT (0: no batch precedes it).</param>
/// <param name="CommittedBid">Every batch up to this bid had committed or aborted when the ACT was decided.</param>
[GenerateSerializer, Immutable]
internal readonly record struct HybridDecision(long MaxBeforeBid, long CommittedBid)
{
    /// <summary>No batch precedes the ACT anywhere: nothing to wait for or pass on.</summary>
    public static HybridDecision None => default;
}

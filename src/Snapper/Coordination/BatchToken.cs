namespace Snapper.Coordination;

/// <summary>
/// The token passed around the coordinator ring (Snapper §4.2.1–4.2.2). Whoever holds it may form
/// a batch: it alone knows the last batch emitted and, per actor, the last batch that actor was
/// sent, which becomes the new sub-batch's prevBid.
/// </summary>
internal sealed class BatchToken
{
    /// <summary>The bid of the last batch emitted by any coordinator (0: none).</summary>
    public long LastBid { get; set; }

    /// <summary>Actor → bid of the last batch it was sent. Entries at or below the highest committed bid are stale and read as 0.</summary>
    public Dictionary<ActorId, long> PrevBid { get; } = new();

    /// <summary>Coordinator visits in a row that found nothing to batch; a full idle lap parks the token.</summary>
    public int IdleVisits { get; set; }
}

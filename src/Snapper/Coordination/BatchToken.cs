using Snapper.Protocol;

namespace Snapper.Coordination;

/// <summary>
/// The token passed around the coordinator ring (Snapper §4.2.1–4.2.2), coordinator → next
/// coordinator, as the argument of <see cref="ICoordinator.PassToken"/>. Whoever holds it may form
/// a batch or hand out ACT tids: it alone knows the last tid given out, the last batch emitted and,
/// per actor, the last batch that actor was sent (the new sub-batch's prevBid).
/// </summary>
/// <remarks>
/// Marked <c>[Immutable]</c> although the holder updates it: ownership moves with the message (the
/// sender drops its reference when it passes the token on), so Orleans need not copy it between
/// coordinators of one silo. Across silos it is serialized as usual.
/// </remarks>
[GenerateSerializer, Immutable]
internal sealed class BatchToken
{
    /// <summary>The last tid handed out, to a PACT or in an ACT tid range (Snapper §4.3.1).</summary>
    [Id(0)]
    public long LastTid { get; set; }

    /// <summary>The bid of the last batch emitted by any coordinator (0: none).</summary>
    [Id(1)]
    public long LastBid { get; set; }

    /// <summary>The coordinator that emitted <see cref="LastBid"/>: the next batch commits only after it resolves.</summary>
    [Id(2)]
    public string? LastBidCoordinator { get; set; }

    /// <summary>Actor → bid of the last batch it was sent. Entries at or below <see cref="ResolvedThrough"/> are stale and read as 0.</summary>
    [Id(3)]
    public PrevBids PrevBid { get; set; } = new();

    /// <summary>Every batch up to this bid has committed or aborted (as far as the coordinators visited know).</summary>
    [Id(4)]
    public long ResolvedThrough { get; set; }

    /// <summary>Coordinator visits in a row that found nothing to do; a full idle lap parks the token.</summary>
    [Id(5)]
    public int IdleVisits { get; set; }

    /// <summary>How often the token has been parked: orders "parked at" announcements.</summary>
    [Id(6)]
    public long Parkings { get; set; }

    /// <summary>The ring the token travels.</summary>
    [Id(7)]
    public RingView View { get; set; } = RingView.Empty;

    /// <summary>
    /// Drops the <see cref="PrevBid"/> entries of resolved batches (they read as 0 anyway). Done at
    /// every visit where <see cref="ResolvedThrough"/> has moved, so the token carries only the
    /// actors of batches still in flight: it is serialized whenever it crosses silos.
    /// </summary>
    public void ForgetResolved()
    {
        if (ResolvedThrough <= prunedThrough)
        {
            return;
        }

        foreach (var (actor, bid) in PrevBid)
        {
            if (bid <= ResolvedThrough)
            {
                PrevBid.Remove(actor); // removing the current entry while enumerating is allowed
            }
        }

        prunedThrough = ResolvedThrough;
    }

    /// <summary>
    /// Tids up to here are covered by a durable <see cref="Logging.TidReservationRecord"/>: the
    /// holder hands out no tid beyond it before logging a further reservation.
    /// </summary>
    [Id(9)]
    public long ReservedThrough { get; set; }

    /// <summary>
    /// The epoch of the ring view the token was made for (at the ring's start or a failover): a
    /// failover's new token counts its passes afresh.
    /// </summary>
    [Id(10)]
    public long Generation { get; set; }

    /// <summary>How often the token has been passed on: each pass is numbered, so one delivered twice is taken once.</summary>
    [Id(11)]
    public long Passes { get; set; }

    [Id(8)]
    private long prunedThrough;
}

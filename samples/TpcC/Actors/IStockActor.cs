using Snapper;
using TpcC.Messages;
using TpcC.Schema;

namespace TpcC.Actors;

/// <summary>One partition of a warehouse's STOCK rows, as an actor.</summary>
public interface IStockActor : ITransactionalActor, IGrainWithStringKey
{
    /// <summary>Fills the actor with the initial stock rows of its partition (TPC-C §4.3.3.1).</summary>
    Task Load(TxnContext ctx, TpcCDatabase db, int w, int partition);

    /// <summary>NewOrder's stock update (§2.4.2.2) for the lines this partition supplies to district <paramref name="districtId"/>, in order.</summary>
    Task<StockTaken[]> Take(TxnContext ctx, int districtId, IReadOnlyList<StockRequest> requests);

    /// <summary>StockLevel's count: how many of <paramref name="itemIds"/> have S_QUANTITY below <paramref name="threshold"/> (read-only).</summary>
    Task<int> CountBelow(TxnContext ctx, IReadOnlyList<int> itemIds, int threshold);

    /// <summary>A copy of the partition (read-only), for checks and tests.</summary>
    Task<StockPartition> Read(TxnContext ctx);
}

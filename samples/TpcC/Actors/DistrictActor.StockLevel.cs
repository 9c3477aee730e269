using Snapper;
using TpcC.Transactions;

namespace TpcC.Actors;

/// <summary>StockLevel (TPC-C §2.8.2).</summary>
public sealed partial class DistrictActor
{
    /// <summary>How many of the district's most recent orders StockLevel examines.</summary>
    public const int StockLevelOrders = 20;

    /// <inheritdoc />
    public async Task<StockLevelResult> StockLevel(TxnContext ctx, TpcCDatabase db, StockLevelInput input)
    {
        ArgumentNullException.ThrowIfNull(db);
        ArgumentNullException.ThrowIfNull(input);
        var (w, d) = (input.WarehouseId, input.DistrictId);
        var next = (await LoadedState(ctx, AccessMode.Read)).NextOrderId;

        // The last 20 orders may lie in any partition: ask them all.
        var recent = await Task.WhenAll(Enumerable.Range(0, db.Config.OrderPartitionsPerDistrict).Select(p =>
            CallActor<IOrderActor, int[]>(ctx, db.Orders(w, d, p), a => a.ItemsOfOrders(ctx, next - StockLevelOrders, next))));

        // Distinct items, each counted once by the stock partition holding it. A PACT declared every
        // stock partition of the warehouse (which ones hold the items is known only now), so it
        // calls them all; an ACT calls only those with items.
        var partitions = db.Config.StockPartitionsPerWarehouse;
        var byPartition = new List<int>?[partitions];
        foreach (var item in recent.SelectMany(r => r).Distinct())
        {
            (byPartition[db.StockPartitionOf(item)] ??= []).Add(item);
        }

        var counts = new List<Task<int>>();
        for (var s = 0; s < partitions; s++)
        {
            IReadOnlyList<int> ids = byPartition[s] ?? [];
            if (ids.Count > 0 || ctx.Mode == TxnMode.Pact)
            {
                counts.Add(CallActor<IStockActor, int>(ctx, db.Stock(w, s), a => a.CountBelow(ctx, ids, input.Threshold)));
            }
        }

        var low = (await Task.WhenAll(counts)).Sum();
        return new StockLevelResult(w, d, input.Threshold, low);
    }
}

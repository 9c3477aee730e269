using Snapper;
using TpcC.Loading;
using TpcC.Messages;
using TpcC.Schema;

namespace TpcC.Actors;

/// <summary>The stock actor: one partition of a warehouse's stock.</summary>
public sealed class StockActor : TransactionalActor<StockPartition>, IStockActor
{
    /// <inheritdoc />
    public async Task Load(TxnContext ctx, TpcCDatabase db, int w, int partition)
    {
        ArgumentNullException.ThrowIfNull(db);
        RowGenerator.FillStock(await GetState(ctx, AccessMode.ReadWrite), db.Config, w, partition);
    }

    /// <inheritdoc />
    public async Task<StockTaken[]> Take(TxnContext ctx, int districtId, IReadOnlyList<StockRequest> requests)
    {
        ArgumentNullException.ThrowIfNull(requests);
        var partition = await LoadedState(ctx, AccessMode.ReadWrite);
        var taken = new StockTaken[requests.Count];
        for (var i = 0; i < taken.Length; i++)
        {
            var request = requests[i];
            var row = partition.Rows.GetValueOrDefault(request.ItemId)
                ?? throw new InvalidOperationException($"Item {request.ItemId} has no stock row in actor {Id}.");

            // §2.4.2.2: restock by 91 when fewer than 10 would be left.
            partition.Rows[row.ItemId] = row = row with
            {
                Quantity = row.Quantity >= request.Quantity + 10 ? row.Quantity - request.Quantity : row.Quantity - request.Quantity + 91,
                Ytd = row.Ytd + request.Quantity,
                OrderCount = row.OrderCount + 1,
                RemoteCount = request.Remote ? row.RemoteCount + 1 : row.RemoteCount,
            };
            taken[i] = new StockTaken(row.ItemId, row.Quantity, row.DistFor(districtId), row.Data.Contains(RandomText.Original, StringComparison.Ordinal));
        }

        return taken;
    }

    /// <inheritdoc />
    public async Task<int> CountBelow(TxnContext ctx, IReadOnlyList<int> itemIds, int threshold)
    {
        ArgumentNullException.ThrowIfNull(itemIds);
        if (itemIds.Count == 0)
        {
            return 0; // a PACT's declared call with nothing to count here
        }

        var partition = await LoadedState(ctx, AccessMode.Read);
        return itemIds.Count(id => partition.Rows.TryGetValue(id, out var row) && row.Quantity < threshold);
    }

    /// <inheritdoc />
    public async Task<StockPartition> Read(TxnContext ctx) => StateCopy.Of(await GetState(ctx, AccessMode.Read));

    private async Task<StockPartition> LoadedState(TxnContext ctx, AccessMode mode)
    {
        var partition = await GetState(ctx, mode);
        return partition.WarehouseId != 0 ? partition : throw new InvalidOperationException($"Actor {Id} holds no stock: load the database first (TpcCLoader).");
    }
}

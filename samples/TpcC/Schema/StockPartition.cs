using Snapper;

namespace TpcC.Schema;

/// <summary>
/// The state of a stock actor: one partition of a warehouse's STOCK rows, logged as the rows a
/// transaction changed (<see cref="StockPartitionDelta"/>), not all of them.
/// </summary>
[GenerateSerializer]
public sealed class StockPartition : IDeltaState<StockPartition, StockPartitionDelta>
{
    /// <summary>The warehouse (S_W_ID); 0 until the loader has filled the actor.</summary>
    [Id(0)]
    public int WarehouseId { get; set; }

    /// <summary>Which partition this is (0-based).</summary>
    [Id(1)]
    public int Partition { get; set; }

    /// <summary>The rows, by S_I_ID.</summary>
    [Id(2)]
    public Dictionary<int, Stock> Rows { get; set; } = [];

    /// <inheritdoc />
    public StockPartitionDelta DeltaFrom(StockPartition before)
    {
        ArgumentNullException.ThrowIfNull(before);
        return new(WarehouseId, Partition, RowChanges<int, Stock>.Between(before.Rows, Rows));
    }

    /// <inheritdoc />
    public void Apply(StockPartitionDelta delta)
    {
        ArgumentNullException.ThrowIfNull(delta);
        WarehouseId = delta.WarehouseId;
        Partition = delta.Partition;
        delta.Rows.ApplyTo(Rows);
    }
}

namespace TpcC.Schema;

/// <summary>What a transaction changed in a <see cref="StockPartition"/>: the rows it replaced (NewOrder) or loaded.</summary>
[GenerateSerializer, Immutable]
public sealed record StockPartitionDelta(int WarehouseId, int Partition, RowChanges<int, Stock> Rows);

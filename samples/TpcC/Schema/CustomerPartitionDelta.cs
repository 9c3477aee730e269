namespace TpcC.Schema;

/// <summary>
/// What a transaction changed in a <see cref="CustomerPartition"/>: the customers it replaced
/// (Payment, Delivery) or loaded, and the HISTORY rows it inserted (history only grows).
/// </summary>
[GenerateSerializer, Immutable]
public sealed record CustomerPartitionDelta(
    int WarehouseId,
    int DistrictId,
    int Partition,
    RowChanges<int, Customer> Customers,
    HistoryRow[] HistoryInserted);

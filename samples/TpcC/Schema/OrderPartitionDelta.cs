namespace TpcC.Schema;

/// <summary>
/// What a transaction changed in an <see cref="OrderPartition"/>: orders inserted (NewOrder) or
/// delivered (Delivery), the NEW-ORDER list if it changed (null if not; it holds only the
/// undelivered orders, so it stays short), and the customers whose last order moved.
/// </summary>
[GenerateSerializer, Immutable]
public sealed record OrderPartitionDelta(
    int WarehouseId,
    int DistrictId,
    int Partition,
    RowChanges<int, Order> Orders,
    int[]? NewOrders,
    RowChanges<int, int> LastOrderOfCustomer);

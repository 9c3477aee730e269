using Snapper;

namespace TpcC.Schema;

/// <summary>
/// The state of an order actor: the ORDER, NEW-ORDER and ORDER-LINE rows of one district's
/// customers whose last names hash to this partition, logged as what a transaction changed
/// (<see cref="OrderPartitionDelta"/>): the orders grow with every NewOrder.
/// </summary>
[GenerateSerializer]
public sealed class OrderPartition : IDeltaState<OrderPartition, OrderPartitionDelta>
{
    /// <summary>The warehouse; 0 until the loader has filled the actor.</summary>
    [Id(0)]
    public int WarehouseId { get; set; }

    /// <summary>The district.</summary>
    [Id(1)]
    public int DistrictId { get; set; }

    /// <summary>Which of the district's order partitions this is (0-based).</summary>
    [Id(2)]
    public int Partition { get; set; }

    /// <summary>The orders with their lines, by O_ID.</summary>
    [Id(3)]
    public Dictionary<int, Order> Orders { get; set; } = [];

    /// <summary>The NEW-ORDER rows: O_IDs of undelivered orders, ascending.</summary>
    [Id(4)]
    public List<int> NewOrders { get; set; } = [];

    /// <summary>C_ID → the customer's most recent O_ID here, so OrderStatus does not scan every order.</summary>
    [Id(5)]
    public Dictionary<int, int> LastOrderOfCustomer { get; set; } = [];

    /// <inheritdoc />
    public OrderPartitionDelta DeltaFrom(OrderPartition before)
    {
        ArgumentNullException.ThrowIfNull(before);
        return new(
            WarehouseId,
            DistrictId,
            Partition,
            RowChanges<int, Order>.Between(before.Orders, Orders),
            NewOrders.SequenceEqual(before.NewOrders) ? null : [.. NewOrders],
            RowChanges<int, int>.Between(before.LastOrderOfCustomer, LastOrderOfCustomer));
    }

    /// <inheritdoc />
    public void Apply(OrderPartitionDelta delta)
    {
        ArgumentNullException.ThrowIfNull(delta);
        WarehouseId = delta.WarehouseId;
        DistrictId = delta.DistrictId;
        Partition = delta.Partition;
        delta.Orders.ApplyTo(Orders);
        if (delta.NewOrders is { } newOrders)
        {
            NewOrders = [.. newOrders];
        }

        delta.LastOrderOfCustomer.ApplyTo(LastOrderOfCustomer);
    }
}

using Snapper;
using TpcC.Loading;
using TpcC.Messages;
using TpcC.Schema;
using TpcC.Transactions;

namespace TpcC.Actors;

/// <summary>The order actor: one partition of a district's orders, new orders and order lines.</summary>
public sealed class OrderActor : TransactionalActor<OrderPartition>, IOrderActor
{
    /// <inheritdoc />
    public async Task Load(TxnContext ctx, TpcCDatabase db, int w, int d, int partition, DateTime now) =>
        RowGenerator.FillOrders(await GetState(ctx, AccessMode.ReadWrite), db, w, d, partition, now);

    /// <inheritdoc />
    public async Task Insert(TxnContext ctx, OrderToInsert order)
    {
        ArgumentNullException.ThrowIfNull(order);
        var partition = await LoadedState(ctx, AccessMode.ReadWrite);
        var lines = new OrderLine[order.Lines.Count];
        for (var i = 0; i < lines.Length; i++)
        {
            var line = order.Lines[i];
            lines[i] = new OrderLine
            {
                Number = i + 1,
                ItemId = line.ItemId,
                SupplyWarehouseId = line.SupplyWarehouseId,
                DeliveryDate = null,
                Quantity = line.Quantity,
                Amount = line.Amount,
                DistInfo = line.DistInfo,
            };
        }

        var row = new Order
        {
            Id = order.OrderId,
            CustomerId = order.CustomerId,
            EntryDate = order.EntryDate,
            CarrierId = null,
            LineCount = lines.Length,
            AllLocal = order.AllLocal,
            Lines = lines,
        };

        if (!partition.Orders.TryAdd(row.Id, row))
        {
            // D_NEXT_O_ID hands out each id once; a second insert means two NewOrders read the same value.
            throw new InvalidOperationException($"Order {partition.WarehouseId}/{partition.DistrictId}/{row.Id} exists already (actor {Id}).");
        }

        var at = partition.NewOrders.BinarySearch(row.Id);
        partition.NewOrders.Insert(at < 0 ? ~at : at, row.Id);
        if (partition.LastOrderOfCustomer.GetValueOrDefault(row.CustomerId) < row.Id)
        {
            partition.LastOrderOfCustomer[row.CustomerId] = row.Id;
        }
    }

    /// <inheritdoc />
    public async Task<OrderView?> LastOrderOf(TxnContext ctx, int customerId)
    {
        var partition = await LoadedState(ctx, AccessMode.Read);
        if (!partition.LastOrderOfCustomer.TryGetValue(customerId, out var orderId))
        {
            return null;
        }

        var order = partition.Orders[orderId];
        return new OrderView(order.Id, order.EntryDate, order.CarrierId,
            [.. order.Lines.Select(l => new OrderLineView(l.ItemId, l.SupplyWarehouseId, l.Quantity, l.Amount, l.DeliveryDate))]);
    }

    /// <inheritdoc />
    public async Task<int?> OldestNewOrder(TxnContext ctx)
    {
        var partition = await LoadedState(ctx, AccessMode.Read);
        return partition.NewOrders.Count > 0 ? partition.NewOrders[0] : null;
    }

    /// <inheritdoc />
    public async Task<DeliveredOrder?> Deliver(TxnContext ctx, int? orderId, int carrierId, DateTime deliveryDate)
    {
        if (orderId is not { } id)
        {
            return null; // a PACT's declared call with nothing to do here: no write, no copy
        }

        var partition = await LoadedState(ctx, AccessMode.ReadWrite);
        if (!partition.NewOrders.Remove(id))
        {
            throw new InvalidOperationException($"Order {partition.WarehouseId}/{partition.DistrictId}/{id} is not awaiting delivery (actor {Id}).");
        }

        return Deliver(partition, partition.Orders[id], carrierId, deliveryDate);
    }

    /// <inheritdoc />
    public async Task<DeliveredOrder?> DeliverOldest(TxnContext ctx, int carrierId, DateTime deliveryDate)
    {
        var partition = await LoadedState(ctx, AccessMode.ReadWrite);
        if (partition.NewOrders.Count == 0)
        {
            return null;
        }

        var order = partition.Orders[partition.NewOrders[0]];
        partition.NewOrders.RemoveAt(0);
        return Deliver(partition, order, carrierId, deliveryDate);
    }

    /// <inheritdoc />
    public async Task<int[]> ItemsOfOrders(TxnContext ctx, int fromOrderId, int toOrderId)
    {
        var partition = await LoadedState(ctx, AccessMode.Read);
        var items = new List<int>();
        for (var id = Math.Max(1, fromOrderId); id < toOrderId; id++)
        {
            if (partition.Orders.TryGetValue(id, out var order))
            {
                items.AddRange(order.Lines.Select(l => l.ItemId));
            }
        }

        return [.. items];
    }

    /// <inheritdoc />
    public async Task<OrderPartitionSummary> Summarize(TxnContext ctx)
    {
        var partition = await LoadedState(ctx, AccessMode.Read);
        var orders = partition.Orders.Values;
        var newOrders = partition.NewOrders;
        return new OrderPartitionSummary(
            orders.Count,
            orders.Count == 0 ? null : orders.Max(o => o.Id),
            newOrders.Count,
            newOrders.Count == 0 ? null : newOrders.Min(),
            newOrders.Count == 0 ? null : newOrders.Max(),
            orders.Sum(o => (long)o.LineCount),
            orders.Sum(o => (long)o.Lines.Count));
    }

    /// <inheritdoc />
    public async Task<OrderPartition> Read(TxnContext ctx) => StateCopy.Of(await GetState(ctx, AccessMode.Read));

    private static DeliveredOrder Deliver(OrderPartition partition, Order order, int carrierId, DateTime deliveryDate)
    {
        var lines = new OrderLine[order.Lines.Count];
        var amount = 0m;
        for (var i = 0; i < lines.Length; i++)
        {
            lines[i] = order.Lines[i] with { DeliveryDate = deliveryDate };
            amount += lines[i].Amount;
        }

        partition.Orders[order.Id] = order with { CarrierId = carrierId, Lines = lines };
        return new DeliveredOrder(partition.DistrictId, order.Id, order.CustomerId, amount);
    }

    private async Task<OrderPartition> LoadedState(TxnContext ctx, AccessMode mode)
    {
        var partition = await GetState(ctx, mode);
        return partition.WarehouseId != 0 ? partition : throw new InvalidOperationException($"Actor {Id} holds no orders: load the database first (TpcCLoader).");
    }
}

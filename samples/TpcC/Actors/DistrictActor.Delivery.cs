using Snapper;
using TpcC.Messages;
using TpcC.Transactions;

namespace TpcC.Actors;

/// <summary>Delivery (TPC-C §2.7.4).</summary>
public sealed partial class DistrictActor
{
    /// <inheritdoc />
    public async Task<DeliveryResult> Delivery(TxnContext ctx, TpcCDatabase db, DeliveryInput input)
    {
        ArgumentNullException.ThrowIfNull(db);
        ArgumentNullException.ThrowIfNull(input);
        var w = input.WarehouseId;
        var districts = db.Config.DistrictsPerWarehouse;
        var delivered = await Task.WhenAll(Enumerable.Range(1, districts).Select(d => DeliverOldest(ctx, db, w, d, input)));

        // Whose balance to credit is known only now, so a PACT declared every customer partition of
        // the warehouse and calls each once (most with nothing to do); an ACT calls only those with work.
        var perPartition = db.Config.CustomerPartitionsPerDistrict;
        var work = new List<CustomerDelivery>?[districts * perPartition];
        foreach (var order in delivered)
        {
            if (order is not null)
            {
                var slot = ((order.DistrictId - 1) * perPartition) + db.CustomerPartitionOf(w, order.DistrictId, order.CustomerId);
                (work[slot] ??= []).Add(new CustomerDelivery(order.CustomerId, order.Amount));
            }
        }

        var credits = new List<Task>();
        for (var slot = 0; slot < work.Length; slot++)
        {
            IReadOnlyList<CustomerDelivery> deliveries = work[slot] ?? [];
            if (deliveries.Count > 0 || ctx.Mode == TxnMode.Pact)
            {
                var customers = db.Customers(w, (slot / perPartition) + 1, slot % perPartition);
                credits.Add(CallActor<ICustomerActor>(ctx, customers, a => a.Deliver(ctx, deliveries)));
            }
        }

        await Task.WhenAll(credits);
        var skipped = Enumerable.Range(1, districts).Where(d => delivered[d - 1] is null).ToArray();
        return new DeliveryResult(w, input.CarrierId, [.. delivered.OfType<DeliveredOrder>()], skipped);
    }

    // The district's oldest undelivered order. With one order partition that is one call; with
    // several, every partition is asked for its oldest (read) and then the one holding the lowest
    // O_ID delivers it. A PACT declared two calls per partition, so the others get an empty second call.
    private async Task<DeliveredOrder?> DeliverOldest(TxnContext ctx, TpcCDatabase db, int w, int d, DeliveryInput input)
    {
        var partitions = db.Config.OrderPartitionsPerDistrict;
        if (partitions == 1)
        {
            return await CallActor<IOrderActor, DeliveredOrder?>(ctx, db.Orders(w, d, 0), a => a.DeliverOldest(ctx, input.CarrierId, input.DeliveryDate));
        }

        var oldest = await Task.WhenAll(Enumerable.Range(0, partitions).Select(p =>
            CallActor<IOrderActor, int?>(ctx, db.Orders(w, d, p), a => a.OldestNewOrder(ctx))));
        var chosen = -1;
        for (var p = 0; p < partitions; p++)
        {
            if (oldest[p] is { } id && (chosen < 0 || id < oldest[chosen]!.Value))
            {
                chosen = p;
            }
        }

        var second = new List<Task<DeliveredOrder?>>();
        for (var p = 0; p < partitions; p++)
        {
            if (p == chosen || ctx.Mode == TxnMode.Pact)
            {
                var orderId = p == chosen ? oldest[p] : null;
                second.Add(CallActor<IOrderActor, DeliveredOrder?>(ctx, db.Orders(w, d, p), a => a.Deliver(ctx, orderId, input.CarrierId, input.DeliveryDate)));
            }
        }

        return (await Task.WhenAll(second)).SingleOrDefault(o => o is not null);
    }
}

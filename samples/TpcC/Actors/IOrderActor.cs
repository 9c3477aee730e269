using Snapper;
using TpcC.Messages;
using TpcC.Schema;
using TpcC.Transactions;

namespace TpcC.Actors;

/// <summary>One partition of a district's ORDER, NEW-ORDER and ORDER-LINE rows, as an actor.</summary>
public interface IOrderActor : ITransactionalActor, IGrainWithStringKey
{
    /// <summary>Fills the actor with the initial orders of its partition (TPC-C §4.3.3.1), entered <paramref name="now"/>.</summary>
    Task Load(TxnContext ctx, TpcCDatabase db, int w, int d, int partition, DateTime now);

    /// <summary>NewOrder's insert: the ORDER, its NEW-ORDER row and its ORDER-LINE rows.</summary>
    Task Insert(TxnContext ctx, OrderToInsert order);

    /// <summary>OrderStatus's read: customer <paramref name="customerId"/>'s most recent order, or null.</summary>
    Task<OrderView?> LastOrderOf(TxnContext ctx, int customerId);

    /// <summary>Delivery's look-up when a district has several partitions: the lowest undelivered O_ID here, or null (read-only).</summary>
    Task<int?> OldestNewOrder(TxnContext ctx);

    /// <summary>
    /// Delivers order <paramref name="orderId"/> (§2.7.4.2): deletes its NEW-ORDER row, sets the
    /// carrier and the lines' delivery date; returns its customer and amount. Null writes nothing:
    /// a PACT's second declared call on a partition that had not the oldest order.
    /// </summary>
    Task<DeliveredOrder?> Deliver(TxnContext ctx, int? orderId, int carrierId, DateTime deliveryDate);

    /// <summary>Delivers this partition's oldest undelivered order, if any: Delivery when a district has one partition.</summary>
    Task<DeliveredOrder?> DeliverOldest(TxnContext ctx, int carrierId, DateTime deliveryDate);

    /// <summary>StockLevel's read: the item ids of the lines of orders <paramref name="fromOrderId"/> ≤ O_ID &lt; <paramref name="toOrderId"/> here.</summary>
    Task<int[]> ItemsOfOrders(TxnContext ctx, int fromOrderId, int toOrderId);

    /// <summary>The aggregates of consistency conditions 2–4 (read-only).</summary>
    Task<OrderPartitionSummary> Summarize(TxnContext ctx);

    /// <summary>A copy of the partition (read-only), for checks and tests.</summary>
    Task<OrderPartition> Read(TxnContext ctx);
}

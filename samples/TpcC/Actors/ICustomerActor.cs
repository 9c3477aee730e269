using Snapper;
using TpcC.Messages;
using TpcC.Schema;
using TpcC.Transactions;

namespace TpcC.Actors;

/// <summary>One partition of a district's customers with their history, as an actor; the root of OrderStatus.</summary>
public interface ICustomerActor : ITransactionalActor, IGrainWithStringKey
{
    /// <summary>Fills the actor with the initial customers and history rows of its partition (TPC-C §4.3.3.1), dated <paramref name="now"/>.</summary>
    Task Load(TxnContext ctx, TpcCDatabase db, int w, int d, int partition, DateTime now);

    /// <summary>What NewOrder reads of customer <paramref name="customerId"/> (read-only).</summary>
    Task<CustomerCredit> Credit(TxnContext ctx, int customerId);

    /// <summary>Payment's customer part (§2.5.2.2): select, update balance and counters, maybe C_DATA, insert history.</summary>
    Task<CustomerView> Pay(TxnContext ctx, CustomerPayment payment);

    /// <summary>OrderStatus (§2.6.2) of a customer of this partition (read-only).</summary>
    Task<OrderStatusResult> OrderStatus(TxnContext ctx, TpcCDatabase db, OrderStatusInput input);

    /// <summary>
    /// Delivery's customer part (§2.7.4.2): add each amount to C_BALANCE and count the delivery.
    /// An empty list writes nothing; a PACT makes that call to every partition it declared.
    /// </summary>
    Task Deliver(TxnContext ctx, IReadOnlyList<CustomerDelivery> deliveries);

    /// <summary>A copy of the partition (read-only), for checks and tests.</summary>
    Task<CustomerPartition> Read(TxnContext ctx);
}

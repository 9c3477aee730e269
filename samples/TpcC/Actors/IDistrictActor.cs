using Snapper;
using TpcC.Schema;
using TpcC.Transactions;

namespace TpcC.Actors;

/// <summary>
/// A DISTRICT row as an actor, and the first actor (the root) of NewOrder, Payment, StockLevel and
/// Delivery: NewOrder and Payment write the district anyway, so starting there costs no extra actor.
/// </summary>
public interface IDistrictActor : ITransactionalActor, IGrainWithStringKey
{
    /// <summary>Fills the actor with district (w, d)'s initial row (TPC-C §4.3.3.1).</summary>
    Task Load(TxnContext ctx, TpcCDatabase db, int w, int d);

    /// <summary>NewOrder (§2.4.2) on this district. An unused item id aborts it with <see cref="Snapper.AbortReason.User"/>.</summary>
    Task<NewOrderResult> NewOrder(TxnContext ctx, TpcCDatabase db, NewOrderInput input);

    /// <summary>Payment (§2.5.2) made at this district.</summary>
    Task<PaymentResult> Payment(TxnContext ctx, TpcCDatabase db, PaymentInput input);

    /// <summary>StockLevel (§2.8.2) of this district (read-only).</summary>
    Task<StockLevelResult> StockLevel(TxnContext ctx, TpcCDatabase db, StockLevelInput input);

    /// <summary>
    /// Delivery (§2.7.4) of this district's warehouse, started on its district 1, which it does not
    /// read or write: one transaction delivers the oldest new order of every district.
    /// </summary>
    Task<DeliveryResult> Delivery(TxnContext ctx, TpcCDatabase db, DeliveryInput input);

    /// <summary>A copy of the row (read-only), for checks and tests.</summary>
    Task<District> Read(TxnContext ctx);
}

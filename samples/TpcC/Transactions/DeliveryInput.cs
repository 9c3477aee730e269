namespace TpcC.Transactions;

/// <summary>Delivery's input (§2.7.1): the warehouse, the carrier and the delivery date.</summary>
[GenerateSerializer]
public sealed record DeliveryInput(int WarehouseId, int CarrierId, DateTime DeliveryDate) : TpcCInput
{
    /// <inheritdoc />
    public override TpcCTransactionType Type => TpcCTransactionType.Delivery;
}

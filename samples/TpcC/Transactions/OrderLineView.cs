namespace TpcC.Transactions;

/// <summary>An order line as OrderStatus shows it (§2.6.3.3).</summary>
[GenerateSerializer]
public sealed record OrderLineView(int ItemId, int SupplyWarehouseId, int Quantity, decimal Amount, DateTime? DeliveryDate);

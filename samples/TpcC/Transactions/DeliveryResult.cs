namespace TpcC.Transactions;

/// <summary>
/// Delivery's result (§2.7.4.2 asks to record it): the orders delivered, and the districts skipped
/// because they had no undelivered order.
/// </summary>
[GenerateSerializer]
public sealed record DeliveryResult(int WarehouseId, int CarrierId, IReadOnlyList<DeliveredOrder> Delivered, IReadOnlyList<int> SkippedDistricts);

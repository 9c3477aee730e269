namespace TpcC.Transactions;

/// <summary>One order Delivery delivered: its district, id, customer and the sum of its line amounts.</summary>
[GenerateSerializer]
public sealed record DeliveredOrder(int DistrictId, int OrderId, int CustomerId, decimal Amount);

namespace TpcC.Transactions;

/// <summary>OrderStatus's output: the customer and its most recent order (null if it has none).</summary>
[GenerateSerializer]
public sealed record OrderStatusResult(CustomerView Customer, OrderView? LastOrder);

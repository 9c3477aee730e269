namespace TpcC.Transactions;

/// <summary>An order as OrderStatus shows it (§2.6.3.3).</summary>
[GenerateSerializer]
public sealed record OrderView(int OrderId, DateTime EntryDate, int? CarrierId, IReadOnlyList<OrderLineView> Lines);

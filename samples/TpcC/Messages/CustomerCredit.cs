namespace TpcC.Messages;

/// <summary>Customer actor → NewOrder's root: what NewOrder reads of the customer (C_LAST, C_CREDIT, C_DISCOUNT).</summary>
[GenerateSerializer]
public sealed record CustomerCredit(int CustomerId, string Last, string Credit, decimal Discount);

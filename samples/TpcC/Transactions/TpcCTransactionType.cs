namespace TpcC.Transactions;

/// <summary>The five TPC-C transactions (§2.4–§2.8).</summary>
[GenerateSerializer]
public enum TpcCTransactionType
{
    /// <summary>Enter an order of 5–15 lines (read-write, 45% of the mix).</summary>
    NewOrder = 0,

    /// <summary>Record a customer's payment (read-write, 43%).</summary>
    Payment = 1,

    /// <summary>Show a customer's last order (read-only, 4%).</summary>
    OrderStatus = 2,

    /// <summary>Deliver the oldest undelivered order of each district of a warehouse (read-write, 4%).</summary>
    Delivery = 3,

    /// <summary>Count recently sold items whose stock is low (read-only, 4%).</summary>
    StockLevel = 4,
}

namespace TpcC.Transactions;

/// <summary>NewOrder's output (§2.4.3.3): the order entered and its total.</summary>
[GenerateSerializer]
public sealed record NewOrderResult(
    int WarehouseId,
    int DistrictId,
    int CustomerId,
    string CustomerLast,
    string Credit,
    decimal Discount,
    int OrderId,
    DateTime EntryDate,
    decimal WarehouseTax,
    decimal DistrictTax,
    decimal Total,
    IReadOnlyList<NewOrderLineResult> Lines);

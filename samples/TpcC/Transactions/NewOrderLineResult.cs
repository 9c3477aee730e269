namespace TpcC.Transactions;

/// <summary>One line of NewOrder's output (§2.4.3.3).</summary>
[GenerateSerializer]
public sealed record NewOrderLineResult(int SupplyWarehouseId, int ItemId, string ItemName, int Quantity, int StockQuantity, char BrandGeneric, decimal Price, decimal Amount);

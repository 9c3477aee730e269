namespace TpcC.Transactions;

/// <summary>StockLevel's output (§2.8.3.3): distinct items of the district's last 20 orders whose stock is below the threshold.</summary>
[GenerateSerializer]
public sealed record StockLevelResult(int WarehouseId, int DistrictId, int Threshold, int LowStock);

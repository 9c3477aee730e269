namespace TpcC.Transactions;

/// <summary>One requested line of a NewOrder: which item, from which warehouse, how many.</summary>
[GenerateSerializer]
public sealed record NewOrderLine(int ItemId, int SupplyWarehouseId, int Quantity);

namespace TpcC.Messages;

/// <summary>One line of <see cref="OrderToInsert"/>.</summary>
[GenerateSerializer]
public sealed record OrderLineToInsert(int ItemId, int SupplyWarehouseId, int Quantity, decimal Amount, string DistInfo);

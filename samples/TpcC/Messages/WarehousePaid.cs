using TpcC.Transactions;

namespace TpcC.Messages;

/// <summary>Warehouse actor → Payment's root: the warehouse's name and address, after W_YTD was increased.</summary>
[GenerateSerializer]
public sealed record WarehousePaid(string Name, Address Address);

namespace TpcC.Transactions;

/// <summary>Payment's output (§2.5.3.3).</summary>
[GenerateSerializer]
public sealed record PaymentResult(int WarehouseId, int DistrictId, Address WarehouseAddress, Address DistrictAddress, CustomerView Customer, decimal Amount, DateTime Date);

namespace TpcC.Transactions;

/// <summary>OrderStatus's input (§2.6.1): a customer of district (w, d), by id (40%) or last name (60%).</summary>
[GenerateSerializer]
public sealed record OrderStatusInput(int WarehouseId, int DistrictId, CustomerSelector Customer) : TpcCInput
{
    /// <inheritdoc />
    public override TpcCTransactionType Type => TpcCTransactionType.OrderStatus;
}

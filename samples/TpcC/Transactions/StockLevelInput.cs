namespace TpcC.Transactions;

/// <summary>StockLevel's input (§2.8.1): district (w, d) and the threshold, 10 to 20.</summary>
[GenerateSerializer]
public sealed record StockLevelInput(int WarehouseId, int DistrictId, int Threshold) : TpcCInput
{
    /// <inheritdoc />
    public override TpcCTransactionType Type => TpcCTransactionType.StockLevel;
}

namespace TpcC.Transactions;

/// <summary>NewOrder's input (§2.4.1): customer (w, d, c), 5 to 15 lines and the entry date.</summary>
[GenerateSerializer]
public sealed record NewOrderInput(int WarehouseId, int DistrictId, int CustomerId, IReadOnlyList<NewOrderLine> Lines, DateTime EntryDate) : TpcCInput
{
    /// <inheritdoc />
    public override TpcCTransactionType Type => TpcCTransactionType.NewOrder;

    /// <summary>O_ALL_LOCAL: every line is supplied by the home warehouse.</summary>
    public bool AllLocal => Lines.All(l => l.SupplyWarehouseId == WarehouseId);
}

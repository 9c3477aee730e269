namespace TpcC.Schema;

/// <summary>An ORDER-LINE row (TPC-C §1.3.9); OL_O_ID, OL_D_ID and OL_W_ID are those of its order. Immutable, like its <see cref="Order"/>.</summary>
[GenerateSerializer, Immutable]
public sealed record OrderLine
{
    /// <summary>OL_NUMBER, 1-based.</summary>
    [Id(0)]
    public int Number { get; init; }

    /// <summary>OL_I_ID.</summary>
    [Id(1)]
    public int ItemId { get; init; }

    /// <summary>OL_SUPPLY_W_ID.</summary>
    [Id(2)]
    public int SupplyWarehouseId { get; init; }

    /// <summary>OL_DELIVERY_D: null until delivered.</summary>
    [Id(3)]
    public DateTime? DeliveryDate { get; init; }

    /// <summary>OL_QUANTITY.</summary>
    [Id(4)]
    public int Quantity { get; init; }

    /// <summary>OL_AMOUNT.</summary>
    [Id(5)]
    public decimal Amount { get; init; }

    /// <summary>OL_DIST_INFO: the S_DIST_xx of the supplying stock row for this district.</summary>
    [Id(6)]
    public string DistInfo { get; init; } = "";
}

namespace TpcC.Schema;

/// <summary>A HISTORY row (TPC-C §1.3.5), kept with the customer it belongs to; never changed once inserted.</summary>
[GenerateSerializer, Immutable]
public sealed record HistoryRow
{
    /// <summary>H_C_ID.</summary>
    [Id(0)]
    public int CustomerId { get; init; }

    /// <summary>H_C_D_ID.</summary>
    [Id(1)]
    public int CustomerDistrictId { get; init; }

    /// <summary>H_C_W_ID.</summary>
    [Id(2)]
    public int CustomerWarehouseId { get; init; }

    /// <summary>H_D_ID: the district the payment was made at.</summary>
    [Id(3)]
    public int DistrictId { get; init; }

    /// <summary>H_W_ID: the warehouse the payment was made at.</summary>
    [Id(4)]
    public int WarehouseId { get; init; }

    /// <summary>H_DATE.</summary>
    [Id(5)]
    public DateTime Date { get; init; }

    /// <summary>H_AMOUNT.</summary>
    [Id(6)]
    public decimal Amount { get; init; }

    /// <summary>H_DATA: W_NAME, four spaces, D_NAME (for rows written by Payment).</summary>
    [Id(7)]
    public string Data { get; init; } = "";
}

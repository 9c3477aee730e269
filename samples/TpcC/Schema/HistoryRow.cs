namespace TpcC.Schema;

/// <summary>A HISTORY row (TPC-C §1.3.5), kept with the customer it belongs to.</summary>
[GenerateSerializer]
public sealed class HistoryRow
{
    /// <summary>H_C_ID.</summary>
    [Id(0)]
    public int CustomerId { get; set; }

    /// <summary>H_C_D_ID.</summary>
    [Id(1)]
    public int CustomerDistrictId { get; set; }

    /// <summary>H_C_W_ID.</summary>
    [Id(2)]
    public int CustomerWarehouseId { get; set; }

    /// <summary>H_D_ID: the district the payment was made at.</summary>
    [Id(3)]
    public int DistrictId { get; set; }

    /// <summary>H_W_ID: the warehouse the payment was made at.</summary>
    [Id(4)]
    public int WarehouseId { get; set; }

    /// <summary>H_DATE.</summary>
    [Id(5)]
    public DateTime Date { get; set; }

    /// <summary>H_AMOUNT.</summary>
    [Id(6)]
    public decimal Amount { get; set; }

    /// <summary>H_DATA: W_NAME, four spaces, D_NAME (for rows written by Payment).</summary>
    [Id(7)]
    public string Data { get; set; } = "";
}

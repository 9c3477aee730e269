namespace TpcC.Schema;

/// <summary>The state of a stock actor: one partition of a warehouse's STOCK rows.</summary>
[GenerateSerializer]
public sealed class StockPartition
{
    /// <summary>The warehouse (S_W_ID); 0 until the loader has filled the actor.</summary>
    [Id(0)]
    public int WarehouseId { get; set; }

    /// <summary>Which partition this is (0-based).</summary>
    [Id(1)]
    public int Partition { get; set; }

    /// <summary>The rows, by S_I_ID.</summary>
    [Id(2)]
    public Dictionary<int, Stock> Rows { get; set; } = [];
}

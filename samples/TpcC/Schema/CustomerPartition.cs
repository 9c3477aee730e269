namespace TpcC.Schema;

/// <summary>
/// The state of a customer actor: the customers of one district whose last names hash to this
/// partition, and the history rows of their payments.
/// </summary>
[GenerateSerializer]
public sealed class CustomerPartition
{
    /// <summary>The warehouse; 0 until the loader has filled the actor.</summary>
    [Id(0)]
    public int WarehouseId { get; set; }

    /// <summary>The district.</summary>
    [Id(1)]
    public int DistrictId { get; set; }

    /// <summary>Which of the district's customer partitions this is (0-based).</summary>
    [Id(2)]
    public int Partition { get; set; }

    /// <summary>The customers, by C_ID.</summary>
    [Id(3)]
    public Dictionary<int, Customer> Customers { get; set; } = [];

    /// <summary>HISTORY rows of these customers, oldest first (insert-only).</summary>
    [Id(4)]
    public List<HistoryRow> History { get; set; } = [];
}

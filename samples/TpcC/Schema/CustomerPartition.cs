namespace TpcC.Schema;

/// <summary>
/// The state of a customer actor: the customers of one district whose last names hash to this
/// partition, and the history rows of their payments.
/// </summary>
public sealed class CustomerPartition
{
    /// <summary>The warehouse; 0 until the loader has filled the actor.</summary>
    public int WarehouseId { get; set; }

    /// <summary>The district.</summary>
    public int DistrictId { get; set; }

    /// <summary>Which of the district's customer partitions this is (0-based).</summary>
    public int Partition { get; set; }

    /// <summary>The customers, by C_ID.</summary>
    public Dictionary<int, Customer> Customers { get; set; } = [];

    /// <summary>HISTORY rows of these customers, oldest first (insert-only).</summary>
    public List<HistoryRow> History { get; set; } = [];
}

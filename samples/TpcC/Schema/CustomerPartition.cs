using Snapper;

namespace TpcC.Schema;

/// <summary>
/// The state of a customer actor: the customers of one district whose last names hash to this
/// partition, and the history rows of their payments, logged as what a transaction changed
/// (<see cref="CustomerPartitionDelta"/>): the history grows with every Payment.
/// </summary>
[GenerateSerializer]
public sealed class CustomerPartition : IDeltaState<CustomerPartition, CustomerPartitionDelta>
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

    /// <inheritdoc />
    public CustomerPartitionDelta DeltaFrom(CustomerPartition before)
    {
        ArgumentNullException.ThrowIfNull(before);
        var from = before.History.Count;
        if (History.Count < from)
        {
            throw new InvalidOperationException($"Customer partition {WarehouseId}/{DistrictId}/{Partition} lost HISTORY rows ({from} → {History.Count}): history is only inserted into.");
        }

        return new(
            WarehouseId,
            DistrictId,
            Partition,
            RowChanges<int, Customer>.Between(before.Customers, Customers),
            [.. History.Skip(from)]);
    }

    /// <inheritdoc />
    public void Apply(CustomerPartitionDelta delta)
    {
        ArgumentNullException.ThrowIfNull(delta);
        WarehouseId = delta.WarehouseId;
        DistrictId = delta.DistrictId;
        Partition = delta.Partition;
        delta.Customers.ApplyTo(Customers);
        History.AddRange(delta.HistoryInserted);
    }
}

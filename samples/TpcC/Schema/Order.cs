namespace TpcC.Schema;

/// <summary>An ORDER row (TPC-C §1.3.7) with its ORDER-LINE rows (§1.3.9), which never outlive it. Immutable: a write replaces the row (<see cref="RowChanges{TKey, TRow}"/>).</summary>
[GenerateSerializer, Immutable]
public sealed record Order
{
    /// <summary>O_ID.</summary>
    [Id(0)]
    public int Id { get; init; }

    /// <summary>O_C_ID.</summary>
    [Id(1)]
    public int CustomerId { get; init; }

    /// <summary>O_ENTRY_D.</summary>
    [Id(2)]
    public DateTime EntryDate { get; init; }

    /// <summary>O_CARRIER_ID: null until delivered.</summary>
    [Id(3)]
    public int? CarrierId { get; init; }

    /// <summary>O_OL_CNT: the number of order lines; consistency condition 4 counts <see cref="Lines"/> against it.</summary>
    [Id(4)]
    public int LineCount { get; init; }

    /// <summary>O_ALL_LOCAL: true when every line is supplied by the home warehouse.</summary>
    [Id(5)]
    public bool AllLocal { get; init; }

    /// <summary>The ORDER-LINE rows, by OL_NUMBER.</summary>
    [Id(6)]
    public IReadOnlyList<OrderLine> Lines { get; init; } = [];
}

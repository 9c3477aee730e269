namespace TpcC.Schema;

/// <summary>An ORDER row (TPC-C §1.3.7) with its ORDER-LINE rows (§1.3.9), which never outlive it.</summary>
public sealed class Order
{
    /// <summary>O_ID.</summary>
    public int Id { get; set; }

    /// <summary>O_C_ID.</summary>
    public int CustomerId { get; set; }

    /// <summary>O_ENTRY_D.</summary>
    public DateTime EntryDate { get; set; }

    /// <summary>O_CARRIER_ID: null until delivered.</summary>
    public int? CarrierId { get; set; }

    /// <summary>O_OL_CNT: the number of order lines; consistency condition 4 counts <see cref="Lines"/> against it.</summary>
    public int LineCount { get; set; }

    /// <summary>O_ALL_LOCAL: true when every line is supplied by the home warehouse.</summary>
    public bool AllLocal { get; set; }

    /// <summary>The ORDER-LINE rows, by OL_NUMBER.</summary>
    public List<OrderLine> Lines { get; set; } = [];
}

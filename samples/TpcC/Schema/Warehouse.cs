namespace TpcC.Schema;

/// <summary>A WAREHOUSE row (TPC-C §1.3.1): the state of a warehouse actor.</summary>
[GenerateSerializer]
public sealed class Warehouse
{
    /// <summary>W_ID; 0 until the loader has filled the actor.</summary>
    [Id(0)]
    public int Id { get; set; }

    /// <summary>W_NAME.</summary>
    [Id(1)]
    public string Name { get; set; } = "";

    /// <summary>W_STREET_1.</summary>
    [Id(2)]
    public string Street1 { get; set; } = "";

    /// <summary>W_STREET_2.</summary>
    [Id(3)]
    public string Street2 { get; set; } = "";

    /// <summary>W_CITY.</summary>
    [Id(4)]
    public string City { get; set; } = "";

    /// <summary>W_STATE.</summary>
    [Id(5)]
    public string State { get; set; } = "";

    /// <summary>W_ZIP.</summary>
    [Id(6)]
    public string Zip { get; set; } = "";

    /// <summary>W_TAX: sales tax, 0.0000 to 0.2000.</summary>
    [Id(7)]
    public decimal Tax { get; set; }

    /// <summary>W_YTD: year-to-date balance; consistency condition 1 ties it to its districts' D_YTD.</summary>
    [Id(8)]
    public decimal Ytd { get; set; }
}

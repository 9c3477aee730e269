namespace TpcC.Schema;

/// <summary>A WAREHOUSE row (TPC-C §1.3.1): the state of a warehouse actor.</summary>
public sealed class Warehouse
{
    /// <summary>W_ID; 0 until the loader has filled the actor.</summary>
    public int Id { get; set; }

    /// <summary>W_NAME.</summary>
    public string Name { get; set; } = "";

    /// <summary>W_STREET_1.</summary>
    public string Street1 { get; set; } = "";

    /// <summary>W_STREET_2.</summary>
    public string Street2 { get; set; } = "";

    /// <summary>W_CITY.</summary>
    public string City { get; set; } = "";

    /// <summary>W_STATE.</summary>
    public string State { get; set; } = "";

    /// <summary>W_ZIP.</summary>
    public string Zip { get; set; } = "";

    /// <summary>W_TAX: sales tax, 0.0000 to 0.2000.</summary>
    public decimal Tax { get; set; }

    /// <summary>W_YTD: year-to-date balance; consistency condition 1 ties it to its districts' D_YTD.</summary>
    public decimal Ytd { get; set; }
}

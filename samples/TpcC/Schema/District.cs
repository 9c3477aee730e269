namespace TpcC.Schema;

/// <summary>A DISTRICT row (TPC-C §1.3.2): the state of a district actor.</summary>
public sealed class District
{
    /// <summary>D_ID; 0 until the loader has filled the actor.</summary>
    public int Id { get; set; }

    /// <summary>D_W_ID.</summary>
    public int WarehouseId { get; set; }

    /// <summary>D_NAME.</summary>
    public string Name { get; set; } = "";

    /// <summary>D_STREET_1.</summary>
    public string Street1 { get; set; } = "";

    /// <summary>D_STREET_2.</summary>
    public string Street2 { get; set; } = "";

    /// <summary>D_CITY.</summary>
    public string City { get; set; } = "";

    /// <summary>D_STATE.</summary>
    public string State { get; set; } = "";

    /// <summary>D_ZIP.</summary>
    public string Zip { get; set; } = "";

    /// <summary>D_TAX: sales tax, 0.0000 to 0.2000.</summary>
    public decimal Tax { get; set; }

    /// <summary>D_YTD: year-to-date balance.</summary>
    public decimal Ytd { get; set; }

    /// <summary>D_NEXT_O_ID: the id the next NewOrder of this district gets.</summary>
    public int NextOrderId { get; set; }
}

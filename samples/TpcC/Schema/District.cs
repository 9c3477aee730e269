namespace TpcC.Schema;

/// <summary>A DISTRICT row (TPC-C §1.3.2): the state of a district actor.</summary>
[GenerateSerializer]
public sealed class District
{
    /// <summary>D_ID; 0 until the loader has filled the actor.</summary>
    [Id(0)]
    public int Id { get; set; }

    /// <summary>D_W_ID.</summary>
    [Id(1)]
    public int WarehouseId { get; set; }

    /// <summary>D_NAME.</summary>
    [Id(2)]
    public string Name { get; set; } = "";

    /// <summary>D_STREET_1.</summary>
    [Id(3)]
    public string Street1 { get; set; } = "";

    /// <summary>D_STREET_2.</summary>
    [Id(4)]
    public string Street2 { get; set; } = "";

    /// <summary>D_CITY.</summary>
    [Id(5)]
    public string City { get; set; } = "";

    /// <summary>D_STATE.</summary>
    [Id(6)]
    public string State { get; set; } = "";

    /// <summary>D_ZIP.</summary>
    [Id(7)]
    public string Zip { get; set; } = "";

    /// <summary>D_TAX: sales tax, 0.0000 to 0.2000.</summary>
    [Id(8)]
    public decimal Tax { get; set; }

    /// <summary>D_YTD: year-to-date balance.</summary>
    [Id(9)]
    public decimal Ytd { get; set; }

    /// <summary>D_NEXT_O_ID: the id the next NewOrder of this district gets.</summary>
    [Id(10)]
    public int NextOrderId { get; set; }
}

namespace TpcC.Schema;

/// <summary>An ITEM row (TPC-C §1.3.3); never written after loading.</summary>
public sealed class Item
{
    /// <summary>I_ID.</summary>
    public int Id { get; set; }

    /// <summary>I_IM_ID.</summary>
    public int ImageId { get; set; }

    /// <summary>I_NAME.</summary>
    public string Name { get; set; } = "";

    /// <summary>I_PRICE.</summary>
    public decimal Price { get; set; }

    /// <summary>I_DATA.</summary>
    public string Data { get; set; } = "";
}

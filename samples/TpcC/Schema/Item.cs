namespace TpcC.Schema;

/// <summary>An ITEM row (TPC-C §1.3.3); never written after loading.</summary>
[GenerateSerializer]
public sealed class Item
{
    /// <summary>I_ID.</summary>
    [Id(0)]
    public int Id { get; set; }

    /// <summary>I_IM_ID.</summary>
    [Id(1)]
    public int ImageId { get; set; }

    /// <summary>I_NAME.</summary>
    [Id(2)]
    public string Name { get; set; } = "";

    /// <summary>I_PRICE.</summary>
    [Id(3)]
    public decimal Price { get; set; }

    /// <summary>I_DATA.</summary>
    [Id(4)]
    public string Data { get; set; } = "";
}

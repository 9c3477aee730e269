namespace TpcC.Schema;

/// <summary>The state of an item actor: one partition of the read-only item catalogue.</summary>
[GenerateSerializer]
public sealed class ItemCatalogue
{
    /// <summary>Which partition this is (0-based); -1 until the loader has filled the actor.</summary>
    [Id(0)]
    public int Partition { get; set; } = -1;

    /// <summary>The items, by I_ID.</summary>
    [Id(1)]
    public Dictionary<int, Item> Items { get; set; } = [];
}

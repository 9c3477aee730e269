namespace TpcC.Messages;

/// <summary>Item actor → NewOrder's root: an item's name, price and whether I_DATA contains "ORIGINAL".</summary>
[GenerateSerializer]
public sealed record ItemInfo(int ItemId, string Name, decimal Price, bool Original);

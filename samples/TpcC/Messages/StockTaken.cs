namespace TpcC.Messages;

/// <summary>Stock actor → NewOrder's root: the quantity left, the district's S_DIST_xx, and whether S_DATA contains "ORIGINAL".</summary>
[GenerateSerializer]
public sealed record StockTaken(int ItemId, int QuantityLeft, string DistInfo, bool Original);

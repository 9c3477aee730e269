namespace TpcC.Messages;

/// <summary>NewOrder's root → stock actor: take <see cref="Quantity"/> of an item; <see cref="Remote"/> when the order is another warehouse's.</summary>
[GenerateSerializer]
public sealed record StockRequest(int ItemId, int Quantity, bool Remote);

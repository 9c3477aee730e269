namespace TpcC.Messages;

/// <summary>NewOrder's root → order actor: the ORDER, NEW-ORDER and ORDER-LINE rows to insert.</summary>
[GenerateSerializer]
public sealed record OrderToInsert(int OrderId, int CustomerId, DateTime EntryDate, bool AllLocal, IReadOnlyList<OrderLineToInsert> Lines);

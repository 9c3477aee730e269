namespace TpcC.Messages;

/// <summary>Delivery's root → customer actor: add <see cref="Amount"/> to C_BALANCE and count one delivery.</summary>
[GenerateSerializer]
public sealed record CustomerDelivery(int CustomerId, decimal Amount);

using Snapper;

namespace SmallBank;

/// <summary>
/// The after-commit action of a MultiTransfer that asks for one (<see cref="MultiTransferInput.Notify"/>):
/// tell the payer's bank that <paramref name="Amount"/> went from <paramref name="From"/> to each of
/// <paramref name="To"/>, only once the transfer has committed.
/// </summary>
[GenerateSerializer, Immutable, Alias("smallbank.transfer-notice")]
public sealed record TransferNotice([property: Id(0)] ActorId From, [property: Id(1)] IReadOnlyList<ActorId> To, [property: Id(2)] decimal Amount);

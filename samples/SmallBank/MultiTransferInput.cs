using Snapper;

namespace SmallBank;

/// <summary>
/// Snapper's MultiTransfer: debit <see cref="Amount"/> per recipient once, deposit it to each
/// recipient in parallel; with <see cref="Notify"/>, a <see cref="TransferNotice"/> goes out once it committed.
/// </summary>
[GenerateSerializer]
public sealed record MultiTransferInput(decimal Amount, IReadOnlyList<ActorId> To, bool Notify = false);

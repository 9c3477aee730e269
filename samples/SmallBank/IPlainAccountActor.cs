using Snapper;

namespace SmallBank;

/// <summary>The same customer as a plain actor with no transactions: the "nt" baseline (Snapper §5.2.1).</summary>
public interface IPlainAccountActor : IActor, IGrainWithIntegerKey
{
    /// <summary>Checking plus savings.</summary>
    Task<decimal> Balance();

    /// <summary>Adds <paramref name="amount"/> to checking.</summary>
    Task DepositChecking(decimal amount);

    /// <summary>Debits checking once, deposits to every recipient in parallel; returns the checking balance left.</summary>
    Task<decimal> MultiTransfer(MultiTransferInput input);
}

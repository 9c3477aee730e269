using Snapper;

namespace SmallBank;

/// <summary>The SmallBank transactions on one customer, as a transactional actor.</summary>
public interface IAccountActor : ITransactionalActor, IGrainWithIntegerKey
{
    /// <summary>Checking plus savings (read-only).</summary>
    Task<decimal> Balance(TxnContext ctx);

    /// <summary>Adds <paramref name="amount"/> (≥ 0) to checking.</summary>
    Task DepositChecking(TxnContext ctx, decimal amount);

    /// <summary>Adds <paramref name="amount"/> (may be negative) to savings; aborts if savings would go negative.</summary>
    Task TransactSaving(TxnContext ctx, decimal amount);

    /// <summary>Moves all of this customer's money into <paramref name="to"/>'s checking.</summary>
    Task Amalgamate(TxnContext ctx, ActorId to);

    /// <summary>Pays a cheque from checking; overdrawing the total costs a penalty of 1.</summary>
    Task WriteCheck(TxnContext ctx, decimal amount);

    /// <summary>Moves <paramref name="amount"/> from this checking to <paramref name="to"/>'s checking; aborts on insufficient funds.</summary>
    Task SendPayment(TxnContext ctx, ActorId to, decimal amount);

    /// <summary>Debits checking once, deposits to every recipient in parallel; returns the checking balance left.</summary>
    Task<decimal> MultiTransfer(TxnContext ctx, MultiTransferInput input);
}

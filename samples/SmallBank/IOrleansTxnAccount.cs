namespace SmallBank;

/// <summary>
/// A SmallBank account written as Orleans users write it with <c>Microsoft.Orleans.Transactions</c>:
/// the peer LoadGen's <c>orleans-txn</c> mode measures Snapper against, on the same keys,
/// MultiTransfer, distributions and sizes.
/// </summary>
public interface IOrleansTxnAccount : IGrainWithIntegerKey
{
    /// <summary>
    /// Debits checking by <paramref name="amount"/> per recipient and deposits it to each, in one new
    /// transaction, taking the accounts (this one included) one after another in key order: every
    /// transfer locks in the same global order, so two of them never wait for each other in a cycle.
    /// </summary>
    [Transaction(TransactionOption.Create)]
    Task<decimal> MultiTransfer(decimal amount, long[] to);

    /// <summary>
    /// The same transfer with the deposits sent in parallel after the debit, as first written: two
    /// transfers that meet on two accounts may lock them in opposite orders and then wait until
    /// Orleans' lock timeouts break the cycle. Kept to show that cost, not as a way to write it.
    /// </summary>
    [Transaction(TransactionOption.Create)]
    Task<decimal> MultiTransferParallel(decimal amount, long[] to);

    /// <summary>Adds <paramref name="amount"/> to checking, inside the caller's transaction.</summary>
    [Transaction(TransactionOption.Join)]
    Task DepositChecking(decimal amount);

    /// <summary>Checking plus savings, in the caller's transaction or a new one.</summary>
    [Transaction(TransactionOption.CreateOrJoin)]
    Task<decimal> Balance();
}

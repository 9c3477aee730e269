using Snapper;

namespace SmallBank;

/// <summary>SmallBank on Snapper: each method is one step of a transaction.</summary>
public sealed class AccountActor : TransactionalActor<Account>, IAccountActor
{
    /// <inheritdoc />
    public async Task<decimal> Balance(TxnContext ctx) => (await GetState(ctx, AccessMode.Read)).Total();

    /// <inheritdoc />
    public async Task DepositChecking(TxnContext ctx, decimal amount)
    {
        if (amount < 0)
        {
            throw new TransactionAbortedException(AbortReason.User, $"cannot deposit a negative amount ({amount})");
        }

        var account = await GetState(ctx, AccessMode.ReadWrite);
        account.Checking += amount;
    }

    /// <inheritdoc />
    public async Task TransactSaving(TxnContext ctx, decimal amount)
    {
        var account = await GetState(ctx, AccessMode.ReadWrite);
        if (account.Savings + amount < 0)
        {
            throw new TransactionAbortedException(AbortReason.User, $"insufficient savings: {account.Savings} + {amount} < 0");
        }

        account.Savings += amount;
    }

    /// <inheritdoc />
    public async Task Amalgamate(TxnContext ctx, ActorId to)
    {
        var account = await GetState(ctx, AccessMode.ReadWrite);
        var total = account.Total();
        account.Checking = 0;
        account.Savings = 0;
        await CallActor<IAccountActor>(ctx, to, a => a.DepositChecking(ctx, total));
    }

    /// <inheritdoc />
    public async Task WriteCheck(TxnContext ctx, decimal amount)
    {
        var account = await GetState(ctx, AccessMode.ReadWrite);
        account.Checking -= account.Total() < amount ? amount + 1 : amount;
    }

    /// <inheritdoc />
    public async Task SendPayment(TxnContext ctx, ActorId to, decimal amount)
    {
        var account = await GetState(ctx, AccessMode.ReadWrite);
        if (account.Checking < amount)
        {
            throw new TransactionAbortedException(AbortReason.User, $"insufficient funds: checking {account.Checking} < {amount}");
        }

        account.Checking -= amount;
        await CallActor<IAccountActor>(ctx, to, a => a.DepositChecking(ctx, amount));
    }

    /// <inheritdoc />
    public async Task<decimal> MultiTransfer(TxnContext ctx, MultiTransferInput input)
    {
        var account = await GetState(ctx, AccessMode.ReadWrite);
        var debit = input.Amount * input.To.Count;
        if (account.Checking < debit)
        {
            throw new TransactionAbortedException(AbortReason.User, $"insufficient funds: checking {account.Checking} < {debit}");
        }

        account.Checking -= debit;
        await Task.WhenAll(input.To.Select(to => CallActor<IAccountActor>(ctx, to, a => a.DepositChecking(ctx, input.Amount))));
        if (input.Notify)
        {
            AfterCommit(ctx, new TransferNotice(Id, input.To, input.Amount)); // sent only if the transfer commits
        }

        return account.Checking;
    }
}

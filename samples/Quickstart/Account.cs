using Snapper;

namespace Quickstart;

// An actor's state: a class Orleans can serialize (Snapper logs it and copies it for writers).
[GenerateSerializer]
public sealed class Balance
{
    [Id(0)]
    public decimal Amount { get; set; } = 100m;
}

// An actor interface is an ordinary grain interface; transactional methods take a TxnContext.
public interface IAccount : ITransactionalActor, IGrainWithStringKey
{
    Task<decimal> Read(TxnContext ctx);

    Task Deposit(TxnContext ctx, decimal amount);

    Task Transfer(TxnContext ctx, ActorId to, decimal amount);
}

// An actor is an ordinary grain class: Orleans finds it, Snapper makes its calls transactional.
public sealed class Account : TransactionalActor<Balance>, IAccount
{
    public async Task<decimal> Read(TxnContext ctx) => (await GetState(ctx, AccessMode.Read)).Amount;

    public async Task Deposit(TxnContext ctx, decimal amount) => (await GetState(ctx, AccessMode.ReadWrite)).Amount += amount;

    public async Task Transfer(TxnContext ctx, ActorId to, decimal amount)
    {
        var balance = await GetState(ctx, AccessMode.ReadWrite);
        balance.Amount -= amount;
        await CallActor<IAccount>(ctx, to, account => account.Deposit(ctx, amount));
        if (balance.Amount < 0)
        {
            // Rolls back both actors: the deposit above never happened.
            throw new TransactionAbortedException(AbortReason.User, "insufficient funds");
        }
    }
}

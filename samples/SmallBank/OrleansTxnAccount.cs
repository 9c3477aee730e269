using Orleans.Concurrency;
using Orleans.Transactions.Abstractions;

namespace SmallBank;

/// <summary>
/// SmallBank on Orleans' transactions: the state is an <see cref="ITransactionalState{TState}"/>
/// in <see cref="OrleansTxnHosting.StorageName"/>; Orleans locks, logs and commits.
/// </summary>
/// <remarks>Reentrant, as Orleans' transaction samples make their grains: the transactional state's own locks order access.</remarks>
[Reentrant]
public sealed class OrleansTxnAccount(
    [TransactionalState("account", OrleansTxnHosting.StorageName)] ITransactionalState<Account> account) : Grain, IOrleansTxnAccount
{
    /// <summary>Yields first: see <see cref="PlainAccountActor.OnActivateAsync"/>.</summary>
    public override async Task OnActivateAsync(CancellationToken cancellationToken)
    {
        await Task.Yield();
        await base.OnActivateAsync(cancellationToken);
    }

    /// <inheritdoc />
    public Task<decimal> Balance() => account.PerformRead(a => a.Total());

    /// <inheritdoc />
    public Task DepositChecking(decimal amount) => account.PerformUpdate(a => a.Checking += amount);

    /// <inheritdoc />
    public async Task<decimal> MultiTransfer(decimal amount, long[] to)
    {
        ArgumentNullException.ThrowIfNull(to);
        var debit = amount * to.Length;
        var left = await account.PerformUpdate(a =>
        {
            if (a.Checking < debit)
            {
                throw new InvalidOperationException($"insufficient funds: checking {a.Checking} < {debit}");
            }

            a.Checking -= debit;
            return a.Checking;
        });
        await Task.WhenAll(to.Select(key => GrainFactory.GetGrain<IOrleansTxnAccount>(key).DepositChecking(amount)));
        return left;
    }
}

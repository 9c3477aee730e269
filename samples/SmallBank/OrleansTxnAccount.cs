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
        var self = this.GetPrimaryKeyLong();
        var ordered = (long[])to.Clone();
        Array.Sort(ordered);
        decimal? left = null;
        foreach (var key in ordered)
        {
            if (left is null && self <= key)
            {
                left = await Debit(amount * to.Length); // this account's turn, where its key falls among the recipients'
            }

            await GrainFactory.GetGrain<IOrleansTxnAccount>(key).DepositChecking(amount);
        }

        left ??= await Debit(amount * to.Length);
        return left.Value;
    }

    /// <inheritdoc />
    public async Task<decimal> MultiTransferParallel(decimal amount, long[] to)
    {
        ArgumentNullException.ThrowIfNull(to);
        var left = await Debit(amount * to.Length);
        await Task.WhenAll(to.Select(key => GrainFactory.GetGrain<IOrleansTxnAccount>(key).DepositChecking(amount)));
        return left;
    }

    private Task<decimal> Debit(decimal debit) => account.PerformUpdate(a =>
    {
        if (a.Checking < debit)
        {
            throw new InvalidOperationException($"insufficient funds: checking {a.Checking} < {debit}");
        }

        a.Checking -= debit;
        return a.Checking;
    });
}

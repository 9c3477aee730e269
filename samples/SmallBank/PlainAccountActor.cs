using Snapper;

namespace SmallBank;

/// <summary>SmallBank with plain actor calls: no locks, no logging, no commit; a failed step is not rolled back.</summary>
public sealed class PlainAccountActor(ISnapperClient actors) : IPlainAccountActor
{
    private readonly Account account = new();

    /// <inheritdoc />
    public Task<decimal> Balance() => Task.FromResult(account.Total());

    /// <inheritdoc />
    public Task DepositChecking(decimal amount)
    {
        account.Checking += amount;
        return Task.CompletedTask;
    }

    /// <inheritdoc />
    public async Task<decimal> MultiTransfer(MultiTransferInput input)
    {
        var debit = input.Amount * input.To.Count;
        if (account.Checking < debit)
        {
            throw new InvalidOperationException($"insufficient funds: checking {account.Checking} < {debit}");
        }

        account.Checking -= debit;
        await Task.WhenAll(input.To.Select(to => actors.Call<IPlainAccountActor, bool>(to, async a =>
        {
            await a.DepositChecking(input.Amount);
            return true;
        })));
        return account.Checking;
    }
}

using System.Globalization;
using Orleans.Concurrency;
using Snapper;

namespace SmallBank;

/// <summary>SmallBank with plain actor calls: no locks, no logging, no commit; a failed step is not rolled back.</summary>
[Reentrant] // as Snapper's actors are: MultiTransfers calling each other would otherwise deadlock into timeouts
public sealed class PlainAccountActor : Grain, IPlainAccountActor
{
    private readonly Account account = new();

    /// <summary>
    /// Yields so activation never completes synchronously: Orleans 10.4.2 runs the first request
    /// under the activation's start lock when it does, and two plain actors paying each other on
    /// their first calls then deadlock (docs/architecture.md, "Activation never completes
    /// synchronously"). Snapper's own grains do the same.
    /// </summary>
    public override async Task OnActivateAsync(CancellationToken cancellationToken)
    {
        await Task.Yield();
        await base.OnActivateAsync(cancellationToken);
    }

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
        await Task.WhenAll(input.To.Select(to => GrainFactory.GetGrain<IPlainAccountActor>(long.Parse(to.Key, CultureInfo.InvariantCulture)).DepositChecking(input.Amount)));
        return account.Checking;
    }
}

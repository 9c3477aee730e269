using SmallBank;
using Snapper.LoadGen.Options;

namespace Snapper.LoadGen.Workloads;

/// <summary>
/// SmallBank MultiTransfer in each mode: move 1 from the first actor to each of the others.
/// Every mode draws its keys from the same distribution but works on its own accounts
/// (<see cref="IPlainAccountActor"/> for nt; <see cref="IAccountActor"/> keys 0..n-1 for act and
/// n..2n-1 for pact), so one mode's balances never leak into another's verification, and ACTs and
/// PACTs never share an actor (hybrid execution is a later mode of its own).
/// </summary>
public sealed class SmallBankWorkload
{
    /// <summary>Money moved to each recipient.</summary>
    public const decimal Amount = 1m;

    /// <summary>What each account holds at the start: checking plus savings.</summary>
    public const decimal InitialTotal = 2 * Account.InitialBalance;

    private readonly ISnapperClient client;

    // Ids are built once: ActorId.Create formats the key, which would otherwise run per call.
    private readonly ActorId[] accountIds;
    private readonly ActorId[] plainIds;
    private readonly ActorId[] pactIds;

    /// <summary>The workload over accounts 0..<paramref name="actors"/>-1.</summary>
    public SmallBankWorkload(ISnapperClient client, int actors)
    {
        ArgumentNullException.ThrowIfNull(client);
        ArgumentOutOfRangeException.ThrowIfLessThan(actors, 1);
        this.client = client;
        accountIds = new ActorId[actors];
        plainIds = new ActorId[actors];
        pactIds = new ActorId[actors];
        for (var key = 0; key < actors; key++)
        {
            accountIds[key] = ActorId.Create<IAccountActor>(key);
            plainIds[key] = ActorId.Create<IPlainAccountActor>(key);
            pactIds[key] = ActorId.Create<IAccountActor>(actors + key);
        }
    }

    /// <summary>The "issue one MultiTransfer" delegate of <paramref name="mode"/>.</summary>
    public IssueTransaction For(string mode) => mode switch
    {
        ModeNames.Nt => IssuePlain,
        ModeNames.Act => IssueAct,
        ModeNames.Pact => IssuePact,
        _ => throw new ArgumentOutOfRangeException(nameof(mode), mode, "SmallBank has no such mode."),
    };

    /// <summary>
    /// Sums the balances of <paramref name="keys"/> in <paramref name="mode"/> once the load has
    /// drained. MultiTransfer only moves money, so the sum must be keys × <see cref="InitialTotal"/>.
    /// </summary>
    public async Task<VerificationResult> VerifyAsync(string mode, IReadOnlyList<int> keys, int parallelism, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(keys);
        Func<int, Task<decimal>> read = mode switch
        {
            ModeNames.Nt => key => client.Call<IPlainAccountActor, decimal>(plainIds[key], a => a.Balance()),
            ModeNames.Act => ReadCommittedBalance,
            ModeNames.Pact => key => client.RunPact<IAccountActor, decimal>(pactIds[key], (a, ctx) => a.Balance(ctx), AccessSet.Of(pactIds[key]), CancellationToken.None),
            _ => throw new ArgumentOutOfRangeException(nameof(mode), mode, "SmallBank has no such mode."),
        };

        var balances = new decimal[keys.Count];
        await Parallel.ForAsync(0, keys.Count, new ParallelOptions { MaxDegreeOfParallelism = Math.Max(1, parallelism), CancellationToken = cancellationToken }, async (i, _) =>
            balances[i] = await read(keys[i]));
        return new VerificationResult(keys.Count, keys.Count * InitialTotal, balances.Sum());
    }

    private Task IssuePlain(int[] keys)
    {
        var to = new ActorId[keys.Length - 1];
        for (var i = 1; i < keys.Length; i++)
        {
            to[i - 1] = plainIds[keys[i]];
        }

        var input = new MultiTransferInput(Amount, to);
        return client.Call<IPlainAccountActor, decimal>(plainIds[keys[0]], a => a.MultiTransfer(input));
    }

    private Task IssueAct(int[] keys)
    {
        var to = new ActorId[keys.Length - 1];
        for (var i = 1; i < keys.Length; i++)
        {
            to[i - 1] = accountIds[keys[i]];
        }

        var input = new MultiTransferInput(Amount, to);
        return client.RunAct<IAccountActor, decimal>(accountIds[keys[0]], (a, ctx) => a.MultiTransfer(ctx, input), CancellationToken.None);
    }

    // The declaration comes from the MultiTransfer input: one call on the payer, one per recipient.
    private Task IssuePact(int[] keys)
    {
        var to = new ActorId[keys.Length - 1];
        var declared = AccessSet.Of(pactIds[keys[0]]);
        for (var i = 1; i < keys.Length; i++)
        {
            to[i - 1] = pactIds[keys[i]];
            declared = declared.And(to[i - 1]);
        }

        var input = new MultiTransferInput(Amount, to);
        return client.RunPact<IAccountActor, decimal>(pactIds[keys[0]], (a, ctx) => a.MultiTransfer(ctx, input), declared, CancellationToken.None);
    }

    // A read-only ACT. Nothing else runs once the load drained, so it should not abort; if the
    // runtime still aborts it (a lock not released, say), retry a few times rather than report a
    // money difference that is really a stuck lock, then let the abort surface.
    private async Task<decimal> ReadCommittedBalance(int key)
    {
        const int attempts = 5;
        for (var attempt = 1; ; attempt++)
        {
            try
            {
                return await client.RunAct<IAccountActor, decimal>(accountIds[key], (a, ctx) => a.Balance(ctx), CancellationToken.None);
            }
            catch (TransactionAbortedException) when (attempt < attempts)
            {
                await Task.Delay(10 * attempt);
            }
        }
    }
}

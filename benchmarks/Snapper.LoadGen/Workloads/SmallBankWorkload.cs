using SmallBank;
using Snapper.LoadGen.Options;

namespace Snapper.LoadGen.Workloads;

/// <summary>
/// SmallBank MultiTransfer in each mode: move 1 from the first actor to each of the others.
/// Every mode draws its keys from the same distribution but works on its own accounts
/// (<see cref="IPlainAccountActor"/> for nt; <see cref="IAccountActor"/> in the mode's
/// <see cref="ModeNames.KeyBlock"/> otherwise), so one mode's balances never leak into another's
/// verification. Hybrid issues PACTs and ACTs on the same accounts.
/// </summary>
public sealed class SmallBankWorkload : IWorkloadActors
{
    /// <summary>Money moved to each recipient.</summary>
    public const decimal Amount = 1m;

    /// <summary>What each account holds at the start: checking plus savings.</summary>
    public const decimal InitialTotal = 2 * Account.InitialBalance;

    private readonly ISnapperClient client;
    private readonly IGrainFactory grains;
    private readonly int actors;
    private readonly ActOptions act;
    private readonly ActOptions actElr;

    // Ids are built once: ActorId.Create formats the key, which would otherwise run per call.
    private readonly ActorId[] plainIds;
    private readonly IPlainAccountActor?[] plainAccounts;
    private readonly int pactPercent;
    private readonly bool notify;

    private readonly KeyBlockIds<IAccountActor> accounts;

    /// <summary>The workload over <paramref name="actors"/> accounts per mode.</summary>
    /// <param name="client">Issues the transactions.</param>
    /// <param name="actors">Accounts per mode (<c>--actors</c>).</param>
    /// <param name="pactPercent">Hybrid: the percentage of MultiTransfers issued as PACTs.</param>
    /// <param name="onRetry">Told of each ACT attempt that aborted and runs again (<see cref="ActOptions.OnRetry"/>).</param>
    /// <param name="notify">Each Snapper transfer sends a <see cref="TransferNotice"/> once committed (<c>--after-commit</c>).</param>
    public SmallBankWorkload(ISnapperClient client, IGrainFactory grains, int actors, int pactPercent = 90, int actAttempts = 1, bool promote = true, Action<TransactionAbortedException>? onRetry = null, bool notify = false)
    {
        this.notify = notify;
        ArgumentNullException.ThrowIfNull(client);
        ArgumentNullException.ThrowIfNull(grains);
        ArgumentOutOfRangeException.ThrowIfLessThan(actors, 1);
        this.client = client;
        this.grains = grains;
        this.actors = actors;
        act = ActOptions.Default with { MaxAttempts = actAttempts, Promote = promote, OnRetry = onRetry };
        actElr = ActOptions.EarlyRelease with { MaxAttempts = actAttempts, Promote = promote, OnRetry = onRetry };
        this.pactPercent = pactPercent;
        accounts = new KeyBlockIds<IAccountActor>(actors);
        plainIds = new ActorId[actors];
        plainAccounts = new IPlainAccountActor?[actors];
        for (var key = 0; key < actors; key++)
        {
            plainIds[key] = ActorId.Create<IPlainAccountActor>(key);
        }
    }

    /// <summary>What <paramref name="mode"/> issues: MultiTransfers of its kind(s).</summary>
    public TransactionMix For(string mode)
    {
        if (mode == ModeNames.Nt)
        {
            return TransactionMix.Single(mode, IssuePlain);
        }

        if (ModeNames.IsOrleansTxn(mode))
        {
            return TransactionMix.Single(mode, keys => IssueOrleansTxn(mode, keys));
        }

        var ids = accounts.For(mode);
        return mode switch
        {
            ModeNames.Act => TransactionMix.Single(mode, keys => IssueAct(ids, keys, act)),
            ModeNames.ActElr => TransactionMix.Single(mode, keys => IssueAct(ids, keys, actElr)),
            ModeNames.Pact => TransactionMix.Single(mode, keys => IssuePact(ids, keys)),
            ModeNames.Hybrid => TransactionMix.Hybrid(keys => IssuePact(ids, keys), keys => IssueAct(ids, keys, act), pactPercent),
            _ => throw new ArgumentOutOfRangeException(nameof(mode), mode, "SmallBank has no such mode."),
        };
    }

    /// <inheritdoc />
    public IReadOnlyList<IAddressable> Grains(string mode, IGrainFactory grains) => mode switch
    {
        ModeNames.Nt => ActorGrains.Of(grains, plainIds, typeof(IPlainAccountActor)),
        ModeNames.OrleansTxn or ModeNames.OrleansTxnParallel => [.. Enumerable.Range(0, actors).Select(key => OrleansTxnAccount(mode, key))],
        _ => ActorGrains.Of(grains, accounts.For(mode), typeof(IAccountActor)),
    };

    /// <inheritdoc />
    public Func<int, Task>? Read(string mode) => BalanceOf(mode);

    /// <summary>
    /// Sums the balances of <paramref name="keys"/> in <paramref name="mode"/> once the load has
    /// drained. MultiTransfer only moves money, so the sum must be keys × <see cref="InitialTotal"/>.
    /// </summary>
    public async Task<VerificationResult> VerifyAsync(string mode, IReadOnlyList<int> keys, int parallelism, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(keys);
        var read = BalanceOf(mode, retry: true);
        var balances = new decimal[keys.Count];
        await Parallel.ForAsync(0, keys.Count, new ParallelOptions { MaxDegreeOfParallelism = Math.Max(1, parallelism), CancellationToken = cancellationToken }, async (i, _) =>
            balances[i] = await read(keys[i]));
        return new VerificationResult(keys.Count, keys.Count * InitialTotal, balances.Sum());
    }

    // One balance read in mode's own way; the ACT read retries its concurrency aborts when asked.
    private Func<int, Task<decimal>> BalanceOf(string mode, bool retry = false) => mode switch
    {
        ModeNames.Nt => key => PlainAccount(key).Balance(),
        ModeNames.OrleansTxn or ModeNames.OrleansTxnParallel => key => OrleansTxnAccount(mode, key).Balance(),
        ModeNames.Pact => key => client.RunPact<IAccountActor, decimal>(accounts.For(mode)[key], (a, ctx) => a.Balance(ctx), AccessSet.Of(accounts.For(mode)[key]), CancellationToken.None),
        _ => key => ReadCommittedBalance(accounts.For(mode)[key], retry ? 5 : 1),
    };

    private Task IssuePlain(int[] keys)
    {
        var to = new ActorId[keys.Length - 1];
        for (var i = 1; i < keys.Length; i++)
        {
            to[i - 1] = plainIds[keys[i]];
        }

        var input = new MultiTransferInput(Amount, to);
        return PlainAccount(keys[0]).MultiTransfer(input);
    }

    // Orleans' transactions: the grain's [Transaction(Create)] method starts one at this caller.
    private Task IssueOrleansTxn(string mode, int[] keys)
    {
        var to = new long[keys.Length - 1];
        for (var i = 1; i < keys.Length; i++)
        {
            to[i - 1] = OrleansTxnKey(mode, keys[i]);
        }

        var from = OrleansTxnAccount(mode, keys[0]);
        return mode == ModeNames.OrleansTxn ? from.MultiTransfer(Amount, to) : from.MultiTransferParallel(Amount, to);
    }

    // On its own key block, as every transactional mode.
    private long OrleansTxnKey(string mode, int key) => ((long)ModeNames.KeyBlock(mode) * actors) + key;

    private IPlainAccountActor PlainAccount(int key) => plainAccounts[key] ??= grains.GetGrain<IPlainAccountActor>(key); // a race makes two equal references

    private IOrleansTxnAccount OrleansTxnAccount(string mode, int key) => grains.GetGrain<IOrleansTxnAccount>(OrleansTxnKey(mode, key));

    private Task IssueAct(ActorId[] ids, int[] keys, ActOptions options)
    {
        var to = new ActorId[keys.Length - 1];
        for (var i = 1; i < keys.Length; i++)
        {
            to[i - 1] = ids[keys[i]];
        }

        var input = new MultiTransferInput(Amount, to, notify);
        return client.RunAct<IAccountActor, decimal>(ids[keys[0]], (a, ctx) => a.MultiTransfer(ctx, input), options, CancellationToken.None);
    }

    // The declaration comes from the MultiTransfer input: one call on the payer, one per recipient.
    private Task IssuePact(ActorId[] ids, int[] keys)
    {
        var to = new ActorId[keys.Length - 1];
        var declared = AccessSet.Of(ids[keys[0]]);
        for (var i = 1; i < keys.Length; i++)
        {
            to[i - 1] = ids[keys[i]];
            declared = declared.And(to[i - 1]);
        }

        var input = new MultiTransferInput(Amount, to, notify);
        return client.RunPact<IAccountActor, decimal>(ids[keys[0]], (a, ctx) => a.MultiTransfer(ctx, input), declared, CancellationToken.None);
    }

    // A read-only ACT. Nothing else runs once the load drained, so it should not abort; if the
    // runtime still aborts it (a lock not released, say), retry a few times rather than report a
    // money difference that is really a stuck lock, then let the abort surface.
    private async Task<decimal> ReadCommittedBalance(ActorId account, int attempts)
    {
        for (var attempt = 1; ; attempt++)
        {
            try
            {
                return await client.RunAct<IAccountActor, decimal>(account, (a, ctx) => a.Balance(ctx), CancellationToken.None);
            }
            catch (TransactionAbortedException) when (attempt < attempts)
            {
                await Task.Delay(10 * attempt);
            }
        }
    }
}

using Microsoft.Extensions.DependencyInjection;
using SmallBank;
using Snapper.AtRest;
using Snapper.Configuration;
using Snapper.Recovery;
using Snapper.Tests.Infrastructure;

namespace Snapper.Tests.Recovery;

/// <summary>
/// An actor that goes with nothing undecided rests in the store of states at rest, not in its
/// silo's memory, and its next activation reads the store (issue 52, step 2).
/// </summary>
public sealed class StatesAtRestTests : IDisposable
{
    private readonly string directory = Path.Combine(Path.GetTempPath(), $"snapper-atrest-{Guid.NewGuid():N}");

    [Fact]
    public async Task An_idle_actor_rests_in_the_file_store_and_its_next_activation_reads_it_there()
    {
        await using var silo = await TestSilo.StartAsync(s => s.Configure(o =>
        {
            o.Logging = LoggingMode.File;
            o.LogDirectory = directory;
            o.TransactionTimeout = TimeSpan.FromSeconds(4); // an idle actor is let go within a second
        }));
        var account = ActorId.Create<IAccountActor>(7_350_001);
        var other = ActorId.Create<IAccountActor>(7_350_002);
        await silo.Client.RunAct<IAccountActor>(account, (a, ctx) => a.DepositChecking(ctx, 25m));
        await silo.Client.RunPact<IAccountActor, decimal>(account, (a, ctx) => a.MultiTransfer(ctx, new MultiTransferInput(5m, [other])), AccessSet.Of(account).And(other));
        var balance = await Balance(silo, account);
        Assert.Equal((2 * Account.InitialBalance) + 20m, balance);

        await Collect(silo, account, other);

        // Not in the silo's memory: in the store beside the logs.
        Assert.Equal(0, silo.Services.GetRequiredService<CommittedStates>().Count);
        await using var store = new SqliteStateStore(Path.Combine(directory, StatesAtRest.StoreFile));
        var row = await store.ReadAsync(account, CancellationToken.None);
        Assert.NotNull(row);
        Assert.Equal(balance, await Balance(silo, account));
        Assert.Equal((2 * Account.InitialBalance) + 5m, await Balance(silo, other));

        // The next activation wrote its row after it: same version (it only read), a higher sequence.
        await Collect(silo, account, other);
        var next = await store.ReadAsync(account, CancellationToken.None);
        Assert.Equal(row.Value.Version, next!.Value.Version);
        Assert.Equal(row.Value.Sequence + 1, next.Value.Sequence);

        // The next activation reads its row: one that does not read as a state is refused, never taken for no state.
        await store.WriteAsync([new StoredState(account, row.Value.Version + 1, new byte[] { 1, 2, 3 })], CancellationToken.None);
        var refused = await Assert.ThrowsAnyAsync<Exception>(() => Balance(silo, account).WaitAsync(TimeSpan.FromSeconds(30)));
        Assert.Contains($"the state store's entry of {account} does not read as a state at rest", refused.ToString());
    }

    public void Dispose()
    {
        if (Directory.Exists(directory))
        {
            Directory.Delete(directory, recursive: true);
        }
    }

    private static Task<decimal> Balance(TestSilo silo, ActorId account) =>
        silo.Client.RunAct<IAccountActor, decimal>(account, (a, ctx) => a.Balance(ctx));

    private static async Task Collect(TestSilo silo, params ActorId[] actors)
    {
        var management = silo.Grains.GetGrain<IManagementGrain>(0);
        await Poll.Until(
            async () =>
            {
                await management.ForceActivationCollection(TimeSpan.Zero);
                return !actors.Any(silo.Active.Contains);
            },
            "the accounts are collected");
    }
}

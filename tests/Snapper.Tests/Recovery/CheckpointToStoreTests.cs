using Microsoft.Extensions.DependencyInjection;
using SmallBank;
using Snapper.AtRest;
using Snapper.Checkpointing;
using Snapper.Configuration;
using Snapper.Hosting;
using Snapper.Logging;
using Snapper.Recovery;
using Snapper.Tests.Infrastructure;

namespace Snapper.Tests.Recovery;

/// <summary>
/// A checkpoint round moves the states its sealed parts hold to the store of states at rest and
/// truncates them from the logs: a round costs what changed since the last one, not the database
/// (issue 52, step 3).
/// </summary>
public sealed class CheckpointToStoreTests : IDisposable
{
    private readonly string directory = Path.Combine(Path.GetTempPath(), $"snapper-ckpt-store-{Guid.NewGuid():N}");

    [Fact]
    public async Task A_round_writes_the_states_changed_since_the_last_one_to_the_store_and_the_logs_keep_none()
    {
        var accounts = Enumerable.Range(0, 5).Select(i => ActorId.Create<IAccountActor>(7_360_000 + i)).ToArray();
        Dictionary<ActorId, decimal> before;
        await using (var silo = await TestSilo.StartAsync(FileLogging))
        {
            var checkpointer = silo.Grains.GetGrain<ICheckpointer>(0);
            foreach (var account in accounts)
            {
                await silo.Client.RunAct<IAccountActor>(account, (a, ctx) => a.DepositChecking(ctx, 10m));
            }

            await silo.Client.RunPact<IAccountActor, decimal>(accounts[0], (a, ctx) => a.MultiTransfer(ctx, new MultiTransferInput(3m, [accounts[1]])), AccessSet.Of(accounts[0]).And(accounts[1]));

            var first = await checkpointer.Run();
            Assert.Equal(accounts.Length, first.States);

            // The logs hold no state any more: every one is at rest, at the version the actor has.
            var storage = silo.Services.GetRequiredService<ILogStorage>();
            var left = (await LogRecovery.ReadAllAsync(storage, CancellationToken.None)).SelectMany(l => l.Records).ToList();
            Assert.DoesNotContain(left, r => r is CommitRecord { State.IsEmpty: false } or PrepareRecord or BatchCompleteRecord);
            await using (var store = new SqliteStateStore(Path.Combine(directory, StatesAtRest.StoreFile)))
            {
                var rows = await ((IStateStore)store).ReadManyAsync(accounts, CancellationToken.None);
                Assert.All(rows, row => Assert.NotNull(row));
                Assert.Equal([2L, 2L, 1L, 1L, 1L], rows.Select(r => r!.Value.Version));
            }

            // Nothing written since: nothing to write. One account written: one state.
            Assert.Equal(0, (await checkpointer.Run()).States);
            await silo.Client.RunAct<IAccountActor>(accounts[4], (a, ctx) => a.DepositChecking(ctx, 1m));
            Assert.Equal(1, (await checkpointer.Run()).States);
            before = await Balances(silo, accounts);
        }

        // A restart reads the states at rest.
        await using var again = await TestSilo.StartAsync(FileLogging);
        Assert.Equal(before, await Balances(again, accounts));
        Assert.Equal((2 * Account.InitialBalance) + 11m, before[accounts[4]]);
    }

    [Fact]
    public async Task A_row_that_does_not_read_keeps_its_actor_in_the_log_and_the_round_goes_on_for_the_others()
    {
        var (broken, sound) = (ActorId.Create<IAccountActor>(7_360_101), ActorId.Create<IAccountActor>(7_360_102));
        await using var silo = await TestSilo.StartAsync(FileLogging);
        await silo.Client.RunAct<IAccountActor>(broken, (a, ctx) => a.DepositChecking(ctx, 10m));
        await silo.Client.RunAct<IAccountActor>(sound, (a, ctx) => a.DepositChecking(ctx, 10m));
        await using (var store = new SqliteStateStore(Path.Combine(directory, StatesAtRest.StoreFile)))
        {
            // Checked by the store (its checksum matches), but no state at rest.
            await store.WriteAsync([new StoredState(broken, 0, new byte[] { 1, 2, 3 })], CancellationToken.None);
        }

        var round = await silo.Grains.GetGrain<ICheckpointer>(0).Run();

        Assert.Equal(1, round.States);
        var left = (await LogRecovery.ReadAllAsync(silo.Services.GetRequiredService<ILogStorage>(), CancellationToken.None)).SelectMany(l => l.Records).ToList();
        Assert.Equal([broken], left.OfType<CommitRecord>().Where(c => !c.State.IsEmpty).Select(c => c.Actor));
        await using var reader = new SqliteStateStore(Path.Combine(directory, StatesAtRest.StoreFile));
        Assert.Equal(1, (await reader.ReadAsync(sound, CancellationToken.None))!.Value.Version);
    }

    [Fact]
    public async Task Logs_a_round_checkpointed_into_a_store_that_is_gone_do_not_start_a_silo()
    {
        var account = ActorId.Create<IAccountActor>(7_360_201);
        await using (var silo = await TestSilo.StartAsync(FileLogging))
        {
            await silo.Client.RunAct<IAccountActor>(account, (a, ctx) => a.DepositChecking(ctx, 10m));
            await silo.Grains.GetGrain<ICheckpointer>(0).Run();
        }

        // The deposit is in the store only; without it the account would read as new.
        Microsoft.Data.Sqlite.SqliteConnection.ClearAllPools();
        foreach (var file in Directory.GetFiles(directory, StatesAtRest.StoreFile + "*"))
        {
            File.Delete(file);
        }

        var refused = await Record.ExceptionAsync(async () => await (await TestSilo.StartAsync(FileLogging)).DisposeAsync());
        Assert.True(refused is not null && refused.ToString().Contains("were checkpointed into a store of states at rest", StringComparison.Ordinal), $"a silo started on logs whose checkpointed states are gone: {refused}");
    }

    public void Dispose()
    {
        if (Directory.Exists(directory))
        {
            Directory.Delete(directory, recursive: true);
        }
    }

    private void FileLogging(SnapperBuilder s) => s.Configure(o =>
    {
        o.Logging = LoggingMode.File;
        o.LogDirectory = directory;
        o.CheckpointInterval = TimeSpan.Zero; // rounds run when the test says
    });

    private static async Task<Dictionary<ActorId, decimal>> Balances(TestSilo silo, ActorId[] accounts)
    {
        var balances = new Dictionary<ActorId, decimal>();
        foreach (var account in accounts)
        {
            balances[account] = await silo.Client.RunAct<IAccountActor, decimal>(account, (a, ctx) => a.Balance(ctx));
        }

        return balances;
    }
}

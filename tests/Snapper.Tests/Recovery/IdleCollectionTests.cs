using System.Collections.Concurrent;
using Microsoft.Extensions.DependencyInjection;
using SmallBank;
using Snapper.Logging;
using Snapper.Logging.AzureTable;
using Snapper.Tests.Infrastructure;
using Snapper.Configuration;

namespace Snapper.Tests.Recovery;

/// <summary>Actors that Orleans collects while idle, in the middle of load, come back with their committed state (issue 15, item 6).</summary>
public sealed class IdleCollectionTests(Azurite azurite) : IClassFixture<Azurite>, IDisposable
{
    private readonly string directory = Path.Combine(Path.GetTempPath(), $"snapper-collection-{Guid.NewGuid():N}");

    [Theory]
    [InlineData("file")]
    [InlineData("azure-table")]
    public async Task Actors_collected_while_idle_under_load_come_back_with_their_committed_state(string logger)
    {
        await using var silo = await TestSilo.StartAsync(
            s => s.Configure(o =>
            {
                o.Logging = logger == "file" ? LoggingMode.File : LoggingMode.RegisteredStorage;
                o.LogDirectory = logger == "file" ? directory : null;
                o.CheckpointInterval = TimeSpan.FromSeconds(1); // checkpoints run between and during the collections too
                o.TransactionTimeout = TimeSpan.FromSeconds(4); // an actor is let go within a second of its last decision
            }),
            services =>
            {
                if (logger == "azure-table")
                {
                    var options = new AzureTableLogStorageOptions { ConnectionString = azurite.ConnectionString, TableName = Azurite.NewTableName() };
                    services.AddSingleton<ILogStorage>(new AzureTableLogStorage(options));
                    services.AddSingleton<Snapper.AtRest.IStateStore>(new AzureTableStateStore(options)); // as AddSnapperAzureTableLogStorage adds it
                }
            });
        var accounts = Enumerable.Range(0, 12).Select(i => ActorId.Create<IAccountActor>(i)).ToArray();
        var expected = new ConcurrentDictionary<ActorId, decimal>(accounts.Select(a => KeyValuePair.Create(a, 2 * Account.InitialBalance)));
        var management = silo.Grains.GetGrain<IManagementGrain>(0);
        var collected = 0;
        for (var phase = 0; phase < 4; phase++)
        {
            // Half the accounts busy, the other half idle; Orleans collects what is idle while the load runs.
            var busy = phase % 2 == 0 ? accounts[..6] : accounts[6..];
            var idle = accounts.Except(busy).Where(silo.Active.Contains).ToArray();
            var load = Load(silo, busy, 80, seed: phase, expected);

            // Nobody calls the idle ones in this phase: once collected they stay gone. Each is
            // held until every transaction it took part in is decided, then let go.
            await Poll.Until(
                async () =>
                {
                    await management.ForceActivationCollection(TimeSpan.Zero);
                    return !idle.Any(silo.Active.Contains);
                },
                $"the {idle.Length} idle account(s) of phase {phase} are collected");
            collected += idle.Length;
            await load;
        }

        Assert.True(collected >= 6, $"only {collected} actor(s) were collected");
        foreach (var account in accounts)
        {
            Assert.Equal(expected[account], await silo.Client.RunAct<IAccountActor, decimal>(account, (a, ctx) => a.Balance(ctx)));
        }
    }

    public void Dispose()
    {
        if (Directory.Exists(directory))
        {
            Directory.Delete(directory, recursive: true);
        }
    }

    // MultiTransfers among the given accounts, ACTs and PACTs at once; each commit is applied to the expected balances.
    private static Task Load(TestSilo silo, ActorId[] accounts, int count, int seed, ConcurrentDictionary<ActorId, decimal> expected)
    {
        var random = new Random(seed);
        var picks = Enumerable.Range(0, count).Select(_ => accounts.OrderBy(_ => random.Next()).Take(3).ToArray()).ToArray();
        return Task.WhenAll(Enumerable.Range(0, count).Select(async i =>
        {
            var (from, to) = (picks[i][0], picks[i][1..]);
            try
            {
                if (i % 2 == 0)
                {
                    await silo.Client.RunAct<IAccountActor, decimal>(from, (a, ctx) => a.MultiTransfer(ctx, new MultiTransferInput(1, to)));
                }
                else
                {
                    await silo.Client.RunPact<IAccountActor, decimal>(from, (a, ctx) => a.MultiTransfer(ctx, new MultiTransferInput(1, to)), AccessSet.Of(from).And(to[0]).And(to[1]));
                }

                expected.AddOrUpdate(from, 0, (_, b) => b - to.Length);
                foreach (var account in to)
                {
                    expected.AddOrUpdate(account, 0, (_, b) => b + 1);
                }
            }
            catch (TransactionAbortedException)
            {
                // wait-die: nothing applied
            }
        }));
    }
}

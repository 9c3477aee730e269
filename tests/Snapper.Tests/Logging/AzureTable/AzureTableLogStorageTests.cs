using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.DependencyInjection.Extensions;
using SmallBank;
using Snapper.Logging;
using Snapper.Logging.AzureTable;
using Snapper.Tests.Infrastructure;
using static Snapper.Tests.Infrastructure.LogStorageContents;

namespace Snapper.Tests.Logging.AzureTable;

/// <summary>
/// Snapper's log in Azure Table Storage, against Azurite (the real Table API on loopback): what a
/// log storage must do, records past the property limit, groups past the transaction limits, a
/// storage opened again, and a silo recovering its actors from the table.
/// </summary>
public sealed class AzureTableLogStorageTests(Azurite azurite) : IClassFixture<Azurite>
{
    private AzureTableLogStorage NewStorage(string? table = null) =>
        new(new AzureTableLogStorageOptions { ConnectionString = azurite.ConnectionString, TableName = table ?? Azurite.NewTableName() });

    private static ReadOnlyMemory<byte> Record(int seed, int length)
    {
        var bytes = new byte[length];
        new Random(seed).NextBytes(bytes);
        return bytes;
    }

    [Fact]
    public async Task Groups_read_back_in_append_order_per_log_and_every_log_is_listed()
    {
        var storage = NewStorage();
        ReadOnlyMemory<byte>[] first = [Record(1, 10), Record(2, 300)];
        ReadOnlyMemory<byte>[] second = [Record(3, 1)];
        await storage.AppendAsync("snapper-silo/a-0", first, CancellationToken.None);
        await storage.AppendAsync("snapper-silo#b?1", [Record(9, 50)], CancellationToken.None);
        await storage.AppendAsync("snapper-silo/a-0", second, CancellationToken.None);

        Assert.Equal([.. first.Concat(second).Select(r => r.ToArray())], await ReadAllAsync(storage, "snapper-silo/a-0"));
        Assert.Equal([Record(9, 50).ToArray()], await ReadAllAsync(storage, "snapper-silo#b?1"));
        Assert.Empty(await ReadAllAsync(storage, "never-written"));
        var logs = new List<string>();
        await foreach (var log in storage.ListAsync(CancellationToken.None))
        {
            logs.Add(log);
        }

        Assert.Equal(["snapper-silo#b?1", "snapper-silo/a-0"], logs.Order(StringComparer.Ordinal));
    }

    [Fact]
    public async Task A_sealed_log_truncates_exactly_what_came_before_the_seal_even_records_of_many_entities()
    {
        var table = Azurite.NewTableName();
        var storage = NewStorage(table);
        var big = Record(7, (2 * AzureTableLogStorage.ChunkBytes) + 5); // three entities
        var many = Enumerable.Range(0, 150).Select(i => Record(100 + i, 40)).ToList(); // one packed entity
        await storage.AppendAsync("log", [big, .. many], CancellationToken.None);
        var mark = await storage.SealAsync("log", CancellationToken.None);
        ReadOnlyMemory<byte>[] after = [Record(1, 10), big];
        await storage.AppendAsync("log", after, CancellationToken.None);

        await storage.TruncateAsync("log", mark, CancellationToken.None);
        Assert.Equal([.. after.Select(r => r.ToArray())], await ReadAllAsync(storage, "log"));

        // A storage opened on the truncated table goes on after what is left.
        var reopened = new AzureTableLogStorage(new AzureTableLogStorageOptions { ConnectionString = azurite.ConnectionString, TableName = table });
        await reopened.AppendAsync("log", [Record(2, 3)], CancellationToken.None);
        Assert.Equal([.. after.Select(r => r.ToArray()), Record(2, 3).ToArray()], await ReadAllAsync(reopened, "log"));
    }

    [Fact]
    public async Task A_truncation_stopped_part_way_leaves_a_log_that_reads_without_the_torn_group()
    {
        // Truncation deletes newest first: stopped part way, the last group before the mark has
        // lost its end (and maybe its last chunks), never its first ones.
        var table = Azurite.NewTableName();
        var storage = NewStorage(table);
        ReadOnlyMemory<byte>[] kept = [Record(1, 10)];
        ReadOnlyMemory<byte>[] torn = [Record(2, 10), Record(3, (2 * AzureTableLogStorage.ChunkBytes) + 1)]; // four entities
        await storage.AppendAsync("log", kept, CancellationToken.None);
        await storage.AppendAsync("log", torn, CancellationToken.None);
        await storage.SealAsync("log", CancellationToken.None);
        ReadOnlyMemory<byte>[] after = [Record(4, 10)];
        await storage.AppendAsync("log", after, CancellationToken.None);

        var client = new Azure.Data.Tables.TableClient(azurite.ConnectionString, table);
        var rows = new List<string>();
        await foreach (var entity in client.QueryAsync<Azure.Data.Tables.TableEntity>(e => e.PartitionKey == "log", select: ["RowKey"]))
        {
            rows.Add(entity.RowKey);
        }

        Assert.Equal(6, rows.Count);
        foreach (var row in rows[3..5])
        {
            await client.DeleteEntityAsync("log", row); // the torn group's last two chunks
        }

        Assert.Equal([.. kept.Concat(after).Select(r => r.ToArray())], await ReadAllAsync(storage, "log"));
    }

    [Fact]
    public async Task A_record_past_the_property_limit_and_a_group_past_the_transaction_limits_come_back_whole_and_in_order()
    {
        var storage = NewStorage();
        var big = Record(7, (3 * AzureTableLogStorage.ChunkBytes) + 123); // four entities
        var many = Enumerable.Range(0, 250).Select(i => Record(100 + i, 40)).ToList(); // packed into one entity
        var heavy = Enumerable.Range(0, 60).Select(i => Record(1000 + i, 60_000)).ToList(); // an entity each, over 3 MiB
        var crowd = Enumerable.Range(0, 120).SelectMany(i => new[] { Record(2000 + i, 10), Record(3000 + i, AzureTableLogStorage.ChunkBytes + 1) }).ToList(); // 360 entities
        await storage.AppendAsync("log", [big, .. many], CancellationToken.None);
        await storage.AppendAsync("log", heavy, CancellationToken.None);
        await storage.AppendAsync("log", crowd, CancellationToken.None);

        var read = await ReadAllAsync(storage, "log");
        Assert.Equal([big.ToArray(), .. many.Select(r => r.ToArray()), .. heavy.Select(r => r.ToArray()), .. crowd.Select(r => r.ToArray())], read);
    }

    [Fact]
    public async Task The_small_records_of_a_group_share_entities_and_a_large_one_keeps_its_own()
    {
        var table = Azurite.NewTableName();
        var storage = NewStorage(table);
        var small = Enumerable.Range(0, 300).Select(i => Record(i, 200)).ToList();
        var big = Record(999, AzureTableLogStorage.ChunkBytes + 1);
        ReadOnlyMemory<byte>[] group = [.. small[..150], big, .. small[150..]];
        await storage.AppendAsync("log", group, CancellationToken.None);
        await storage.AppendAsync("log", [Record(1000, 10)], CancellationToken.None);

        // 150 small records in one entity, the large one in two chunks, 150 more in one; then the next group.
        Assert.Equal(["0000000000000000000-00000", "0000000000000000150-00000", "0000000000000000150-00001", "0000000000000000151-00000", "0000000000000000301-00000"], await RowsAsync(table));
        Assert.Equal([.. group.Select(r => r.ToArray()), Record(1000, 10).ToArray()], await ReadAllAsync(storage, "log"));

        // A storage opened again numbers its records after all 302.
        await NewStorage(table).AppendAsync("log", [Record(1001, 10)], CancellationToken.None);
        Assert.Equal("0000000000000000302-00000", (await RowsAsync(table))[^1]);
        Assert.Equal([.. group.Select(r => r.ToArray()), Record(1000, 10).ToArray(), Record(1001, 10).ToArray()], await ReadAllAsync(NewStorage(table), "log"));
    }

    [Fact]
    public async Task A_packed_entity_whose_bytes_do_not_hold_the_records_it_names_fails_the_read_naming_them()
    {
        var table = Azurite.NewTableName();
        await NewStorage(table).AppendAsync("log", [Record(1, 5)], CancellationToken.None);
        var client = new Azure.Data.Tables.TableClient(azurite.ConnectionString, table);
        await client.AddEntityAsync(new Azure.Data.Tables.TableEntity("log", "0000000000000000001-00000") { ["Data"] = new byte[] { 9, 0, 0, 0, 1 }, ["Chunks"] = 1, ["Records"] = 1, ["Group"] = 1L, ["End"] = true });

        var corrupt = await Assert.ThrowsAsync<InvalidDataException>(() => ReadAllAsync(NewStorage(table), "log"));
        Assert.Contains("records 1-1", corrupt.Message);
        Assert.Contains("past the entity's end", corrupt.Message);
    }

    private async Task<List<string>> RowsAsync(string table)
    {
        var client = new Azure.Data.Tables.TableClient(azurite.ConnectionString, table);
        var rows = new List<string>();
        await foreach (var entity in client.QueryAsync<Azure.Data.Tables.TableEntity>(e => e.PartitionKey == "log", select: ["RowKey"]))
        {
            rows.Add(entity.RowKey);
        }

        return rows;
    }

    [Fact]
    public async Task A_storage_opened_again_on_the_table_reads_what_was_there_and_appends_after_it()
    {
        var table = Azurite.NewTableName();
        await NewStorage(table).AppendAsync("log", [Record(1, 5), Record(2, 5)], CancellationToken.None);

        var reopened = NewStorage(table);
        await reopened.AppendAsync("log", [Record(3, 5)], CancellationToken.None);

        Assert.Equal([Record(1, 5).ToArray(), Record(2, 5).ToArray(), Record(3, 5).ToArray()], await ReadAllAsync(NewStorage(table), "log"));
    }

    [Fact]
    public void Options_that_cannot_work_are_refused_naming_the_option()
    {
        Assert.Contains("ConnectionString", Assert.Throws<ArgumentException>(() => new AzureTableLogStorage(new AzureTableLogStorageOptions())).Message, StringComparison.Ordinal);
        Assert.Contains("TableName 'no-dashes'", Assert.Throws<ArgumentException>(() => new AzureTableLogStorage(new AzureTableLogStorageOptions { ConnectionString = azurite.ConnectionString, TableName = "no-dashes" })).Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task A_silo_restarted_on_the_table_has_every_acknowledged_ACT_and_PACT()
    {
        var table = Azurite.NewTableName();
        void AzureTables(IServiceCollection services) =>
            services.Replace(ServiceDescriptor.Singleton<ILogStorage>(_ => NewStorage(table)));
        var (a, b, c) = (ActorId.Create<IAccountActor>(1), ActorId.Create<IAccountActor>(2), ActorId.Create<IAccountActor>(3));

        await using (var first = await TestSilo.StartAsync(services: AzureTables))
        {
            await first.Client.RunAct<IAccountActor, decimal>(a, (x, ctx) => x.MultiTransfer(ctx, new MultiTransferInput(10m, [b])));
            await first.Client.RunPact<IAccountActor, decimal>(b, (x, ctx) => x.MultiTransfer(ctx, new MultiTransferInput(3m, [c])), AccessSet.Of(b).And(c));
        }

        await using var second = await TestSilo.StartAsync(services: AzureTables);
        Assert.Equal((2 * Account.InitialBalance) - 10m, await second.Client.RunAct<IAccountActor, decimal>(a, (x, ctx) => x.Balance(ctx)));
        Assert.Equal((2 * Account.InitialBalance) + 7m, await second.Client.RunAct<IAccountActor, decimal>(b, (x, ctx) => x.Balance(ctx)));
        Assert.Equal((2 * Account.InitialBalance) + 3m, await second.Client.RunAct<IAccountActor, decimal>(c, (x, ctx) => x.Balance(ctx)));
    }

    [Fact]
    public async Task LoadGen_logs_to_a_table_of_its_own_and_verifies()
    {
        var (stdout, stderr) = (new StringWriter(), new StringWriter());
        var exit = await Snapper.LoadGen.Runner.MainAsync(
            ["smallbank", "--logger", "azure-table", "--connection", azurite.ConnectionString, "--modes", "pact,act", "--actors", "200", "--duration", "2", "--warmup", "0", "--pipeline", "4", "--verify"],
            stdout, stderr, CancellationToken.None);

        Assert.True(exit == 0, $"exit {exit}\n{stdout}\n{stderr}");
        Assert.Contains("logger azure-table", stdout.ToString(), StringComparison.Ordinal);
        Assert.Contains("pact verify: ok", stdout.ToString(), StringComparison.Ordinal);
    }

    [Fact]
    public async Task LoadGen_says_which_table_service_it_could_not_reach_before_any_load()
    {
        var (stdout, stderr) = (new StringWriter(), new StringWriter());
        var unreachable = "DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==;TableEndpoint=http://127.0.0.1:9/devstoreaccount1;";
        var exit = await Snapper.LoadGen.Runner.MainAsync(["smallbank", "--logger", "azure-table", "--connection", unreachable, "--duration", "2"], stdout, stderr, CancellationToken.None);

        Assert.NotEqual(0, exit);
        var line = Assert.Single(stderr.ToString().Split('\n', StringSplitOptions.RemoveEmptyEntries));
        Assert.Contains("127.0.0.1:9", line, StringComparison.Ordinal);
        Assert.Empty(stdout.ToString());
    }

    [Fact]
    public async Task A_group_left_without_its_end_is_dropped_when_read_even_with_groups_after_it()
    {
        var tableName = Azurite.NewTableName();
        await NewStorage(tableName).AppendAsync("log", [Record(1, 5), Record(2, 5)], CancellationToken.None);

        // What a crash between a group's transactions leaves: records 2 and 3 of group 2, no End.
        var table = new Azure.Data.Tables.TableClient(azurite.ConnectionString, tableName);
        foreach (var sequence in new[] { 2L, 3L })
        {
            await table.AddEntityAsync(new Azure.Data.Tables.TableEntity("log", $"{sequence:D19}-00000") { ["Data"] = Record(50, 5).ToArray(), ["Chunks"] = 1, ["Group"] = 2L });
        }

        // The silo restarts and writes on after them.
        await NewStorage(tableName).AppendAsync("log", [Record(3, 5)], CancellationToken.None);

        Assert.Equal([Record(1, 5).ToArray(), Record(2, 5).ToArray(), Record(3, 5).ToArray()], await ReadAllAsync(NewStorage(tableName), "log"));
    }

    [Fact]
    public async Task A_failed_write_whose_outcome_cannot_be_settled_stops_the_log_until_restart()
    {
        var tableName = Azurite.NewTableName();
        var storage = new AzureTableLogStorage(new AzureTableLogStorageOptions { ConnectionString = azurite.ConnectionString, TableName = tableName, InDoubtPatience = TimeSpan.FromSeconds(1) });
        await storage.AppendAsync("log", [Record(1, 5)], CancellationToken.None);

        await azurite.StopAsync();
        try
        {
            await Assert.ThrowsAnyAsync<Exception>(() => storage.AppendAsync("log", [Record(2, 5)], CancellationToken.None));
        }
        finally
        {
            await azurite.StartAsync();
        }

        // Storage is back but empty (this Azurite keeps nothing across a restart), so nothing could
        // say whether the failed group landed: the log stays stopped, and nothing is built on it.
        var stopped = await Assert.ThrowsAsync<IOException>(() => storage.AppendAsync("log", [Record(3, 5)], CancellationToken.None));
        Assert.Contains("stopped after a write whose outcome stayed unknown", stopped.Message, StringComparison.Ordinal);
    }

    [Fact]
    public Task A_write_that_failed_while_storage_was_down_is_settled_when_it_is_back_and_the_log_goes_on() =>
        OnAzuriteThatKeepsItsTables(async disk =>
        {
            var tableName = Azurite.NewTableName();
            var storage = new AzureTableLogStorage(new AzureTableLogStorageOptions { ConnectionString = disk.ConnectionString, TableName = tableName, InDoubtPatience = TimeSpan.FromMinutes(2) });
            await storage.AppendAsync("log", [Record(1, 5)], CancellationToken.None);

            await disk.ShutDownAsync();
            var failed = storage.AppendAsync("log", [Record(2, 5), Record(3, 70_000)], CancellationToken.None);

            // Longer than the SDK's own retries (3, from 0.8 s, doubling; at most about 7 s): the write
            // has failed and is being settled while storage is down. It cannot complete until storage answers.
            await Task.Delay(TimeSpan.FromSeconds(12));
            Assert.False(failed.IsCompleted, "the failed write was reported before storage could say whether it landed");
            await disk.StartAsync();

            var settled = await Assert.ThrowsAsync<IOException>(() => failed.WaitAsync(TimeSpan.FromSeconds(60)));
            Assert.Contains("the group is void and the log goes on", settled.Message, StringComparison.Ordinal);

            // Service resumes: the next group is written, and readers (this storage and a new one) see
            // what was acknowledged and nothing of the void group.
            await storage.AppendAsync("log", [Record(4, 5)], CancellationToken.None);
            byte[][] expected = [Record(1, 5).ToArray(), Record(4, 5).ToArray()];
            Assert.Equal(expected, await ReadAllAsync(storage, "log"));
            var reopened = new AzureTableLogStorage(new AzureTableLogStorageOptions { ConnectionString = disk.ConnectionString, TableName = tableName });
            Assert.Equal(expected, await ReadAllAsync(reopened, "log"));
            await reopened.AppendAsync("log", [Record(5, 5)], CancellationToken.None);
            Assert.Equal([.. expected, Record(5, 5).ToArray()], await ReadAllAsync(NewStorageOn(disk, tableName), "log"));
        });

    [Fact]
    public Task Transactions_abort_with_Failure_while_the_table_is_down_and_commit_again_once_it_is_back() =>
        OnAzuriteThatKeepsItsTables(async disk =>
        {
            var table = Azurite.NewTableName();
            void AzureTables(IServiceCollection services) =>
                services.Replace(ServiceDescriptor.Singleton<ILogStorage>(_ => new AzureTableLogStorage(
                    new AzureTableLogStorageOptions { ConnectionString = disk.ConnectionString, TableName = table, InDoubtPatience = TimeSpan.FromMinutes(2) })));
            // The ACTs move money from a to b and the PACTs from c to d: apart, so each meets the log alone
            // (an ACT next to a PACT stuck on the log would rightly give up on it for another reason).
            var (a, b, c, d) = (ActorId.Create<IAccountActor>(1), ActorId.Create<IAccountActor>(2), ActorId.Create<IAccountActor>(3), ActorId.Create<IAccountActor>(4));
            Task<decimal> Transfer(TestSilo silo, decimal amount) =>
                silo.Client.RunAct<IAccountActor, decimal>(a, (x, ctx) => x.MultiTransfer(ctx, new MultiTransferInput(amount, [b])));
            Task<decimal> PactTransfer(TestSilo silo, decimal amount) =>
                silo.Client.RunPact<IAccountActor, decimal>(c, (x, ctx) => x.MultiTransfer(ctx, new MultiTransferInput(amount, [d])), AccessSet.Of(c).And(d));

            await using var silo = await TestSilo.StartAsync(services: AzureTables);
            await Transfer(silo, 10m);
            await PactTransfer(silo, 1m);

            await disk.ShutDownAsync();
            var act = Transfer(silo, 100m);
            var pact = PactTransfer(silo, 100m);
            await Task.Delay(TimeSpan.FromSeconds(15)); // well past the SDK's own retries: the writes are being settled
            await disk.StartAsync();

            // Each learns how it ended, none hangs: aborted with Failure (its records never became
            // durable), or, should an SDK retry have reached the table once it was back, committed.
            async Task<decimal> Moved(Task<decimal> transfer, decimal amount)
            {
                try
                {
                    await transfer.WaitAsync(TimeSpan.FromSeconds(60));
                    return amount;
                }
                catch (TransactionAbortedException aborted)
                {
                    Assert.Equal(AbortReason.Failure, aborted.Reason);
                    return 0m;
                }
            }

            var (actMoved, pactMoved) = (await Moved(act, 100m), await Moved(pact, 100m));
            Assert.True(actMoved == 0m || pactMoved == 0m, "neither transaction met the outage");

            // The silo commits again on the same logs, without a restart.
            await Transfer(silo, 5m);
            await PactTransfer(silo, 2m);
            var initial = 2 * Account.InitialBalance;
            var (ab, cd) = (15m + actMoved, 3m + pactMoved);
            var expected = new Dictionary<ActorId, decimal> { [a] = initial - ab, [b] = initial + ab, [c] = initial - cd, [d] = initial + cd };
            foreach (var (account, balance) in expected)
            {
                Assert.Equal(balance, await silo.Client.RunAct<IAccountActor, decimal>(account, (x, ctx) => x.Balance(ctx)));
            }

            // Nothing acknowledged is lost, nothing aborted is there, and a silo recovering from the table agrees.
            await using var recovered = await TestSilo.StartAsync(services: AzureTables);
            foreach (var (account, balance) in expected)
            {
                Assert.Equal(balance, await recovered.Client.RunAct<IAccountActor, decimal>(account, (x, ctx) => x.Balance(ctx)));
            }
        });

    // A table service of the test's own that keeps its tables on disk, so they outlive a shutdown.
    private static async Task OnAzuriteThatKeepsItsTables(Func<Azurite, Task> test)
    {
        var folder = Directory.CreateTempSubdirectory("snapper-azurite-");
        var disk = new Azurite { Location = folder.FullName };
        await disk.InitializeAsync();
        try
        {
            await test(disk);
        }
        finally
        {
            await disk.StopAsync();
            folder.Delete(recursive: true);
        }
    }

    private static AzureTableLogStorage NewStorageOn(Azurite service, string tableName) =>
        new(new AzureTableLogStorageOptions { ConnectionString = service.ConnectionString, TableName = tableName });
}

using Azure.Data.Tables;
using Snapper.Logging.AzureTable;
using Snapper.Tests.Infrastructure;
using static Snapper.Tests.Infrastructure.LogStorageContents;

namespace Snapper.Tests.Regression;

/// <summary>
/// Issue 49, defect 6, for Azure Table logs: rows that did not decode were skipped or misread.
/// A group whose first entity was lost read as the rest of it, a chunk without its Data as an
/// empty chunk of its record, and a property of the wrong type failed with the SDK's own error
/// naming no row. Now every such row fails the read with one line naming the table, the partition
/// and the row key, and a silo refuses to start on it; a torn group is still dropped.
/// </summary>
public sealed class AzureTableUndecodableRowRegressionTests(Azurite azurite) : IClassFixture<Azurite>
{
    // Records of 20,000 bytes: three share an entity, so a group of five takes two.
    private static ReadOnlyMemory<byte>[] Group(int seed, int count, int size = 20_000) =>
        [.. Enumerable.Range(0, count).Select(i => (ReadOnlyMemory<byte>)Enumerable.Repeat((byte)(seed + i), size).ToArray())];

    [Theory]
    [InlineData("first entity of a group lost", "0000000000000000004-00000", "rows between are missing")]
    [InlineData("chunk without its Data", "0000000000000000007-00001", "without Data")]
    [InlineData("property of another type", "0000000000000000007-00000", "wrong type")]
    public async Task A_row_that_does_not_decode_fails_the_read_naming_table_partition_and_row(string damage, string row, string why)
    {
        var (table, client) = NewTable();
        var storage = new AzureTableLogStorage(new AzureTableLogStorageOptions { ConnectionString = azurite.ConnectionString, TableName = table });
        await storage.AppendAsync("log", Group(0, 1), CancellationToken.None);       // record 0: one entity
        await storage.AppendAsync("log", Group(10, 5), CancellationToken.None);      // records 1-5: entities 1 (1-3) and 4 (4-5)
        await storage.AppendAsync("log", Group(20, 1, (2 * AzureTableLogStorage.ChunkBytes) + 1), CancellationToken.None); // record 6: three chunks
        await storage.AppendAsync("log", Group(30, 1, (2 * AzureTableLogStorage.ChunkBytes) + 1), CancellationToken.None); // record 7: three chunks
        Assert.Equal(8, (await ReadAllAsync(storage, "log")).Count);

        switch (damage)
        {
            case "first entity of a group lost":
                await client.DeleteEntityAsync("log", "0000000000000000001-00000");
                break;
            case "chunk without its Data":
                var chunk = (await client.GetEntityAsync<TableEntity>("log", row)).Value;
                chunk.Remove("Data");
                await client.UpdateEntityAsync(chunk, Azure.ETag.All, TableUpdateMode.Replace);
                break;
            default:
                var first = (await client.GetEntityAsync<TableEntity>("log", row)).Value;
                first["Chunks"] = "three";
                await client.UpdateEntityAsync(first, Azure.ETag.All, TableUpdateMode.Replace);
                break;
        }

        var error = await Assert.ThrowsAsync<InvalidDataException>(() => ReadAllAsync(storage, "log"));
        Assert.Contains($"in table '{table}' (partition 'log'), row '{row}'", error.Message);
        Assert.Contains(why, error.Message);
        Assert.DoesNotContain('\n', error.Message);
    }

    [Fact]
    public async Task SiloHost_refuses_to_start_on_a_log_row_that_does_not_decode_in_one_line()
    {
        var (table, client) = NewTable();
        var storage = new AzureTableLogStorage(new AzureTableLogStorageOptions { ConnectionString = azurite.ConnectionString, TableName = table });
        await storage.AppendAsync("snapper-bad-0", Group(0, 1, 10), CancellationToken.None);
        var row = (await client.GetEntityAsync<TableEntity>("snapper-bad-0", "0000000000000000000-00000")).Value;
        row["Records"] = "one";
        await client.UpdateEntityAsync(row, Azure.ETag.All, TableUpdateMode.Replace);

        var (exit, output) = await SiloHostProcess.RunToExitAsync(
            "--name", "bad", "--logger", "azure-table", "--connection", azurite.ConnectionString, "--table", table,
            "--silo-port", $"{SiloHostProcess.FreePort()}", "--gateway-port", $"{SiloHostProcess.FreePort()}");
        Assert.Equal(1, exit);
        var line = Assert.Single(output.TrimEnd().Split('\n'));
        Assert.StartsWith("error: silo bad failed to start: Log 'snapper-bad-0' in table", line);
        Assert.Contains($"(partition 'snapper-bad-0'), row '0000000000000000000-00000': a property has the wrong type", line);
    }

    private (string Table, TableClient Client) NewTable()
    {
        var table = Azurite.NewTableName();
        return (table, new TableClient(azurite.ConnectionString, table));
    }
}

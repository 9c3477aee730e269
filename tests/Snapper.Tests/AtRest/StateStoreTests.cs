using Microsoft.Data.Sqlite;
using Snapper.AtRest;
using Snapper.Logging.AzureTable;
using Snapper.Tests.Infrastructure;
using Snapper.Tests.Logging.FileStorage;

namespace Snapper.Tests.AtRest;

/// <summary>What every <see cref="IStateStore"/> promises: an entry per actor that keeps the highest version written.</summary>
public abstract class StateStoreContract : IAsyncDisposable
{
    protected abstract IStateStore Store { get; }

    public virtual ValueTask DisposeAsync() => ValueTask.CompletedTask;

    protected static ActorId Actor(int n) => ActorId.Create<ITestActor>($"at-rest-{n}");

    protected static StoredState State(int actor, long version) => new(Actor(actor), version, Bytes(actor, version));

    protected static byte[] Bytes(int actor, long version) => [.. BitConverter.GetBytes(actor), .. BitConverter.GetBytes(version), 0xAB];

    [Fact]
    public async Task An_actor_never_written_has_no_entry()
    {
        Assert.Null(await Store.ReadAsync(Actor(1), CancellationToken.None));
    }

    [Fact]
    public async Task A_written_state_reads_back_with_its_version()
    {
        await Store.WriteAsync([State(1, 3)], CancellationToken.None);

        var read = Assert.NotNull(await Store.ReadAsync(Actor(1), CancellationToken.None));
        Assert.Equal(Actor(1), read.Actor);
        Assert.Equal(3, read.Version);
        Assert.Equal(Bytes(1, 3), read.State.ToArray());
    }

    [Fact]
    public async Task The_highest_version_stays_whatever_order_the_writes_come_in()
    {
        await Store.WriteAsync([State(1, 5)], CancellationToken.None);
        await Store.WriteAsync([State(1, 3)], CancellationToken.None); // a late writer: a deactivation behind a checkpoint
        await Store.WriteAsync([State(2, 3)], CancellationToken.None);
        await Store.WriteAsync([State(2, 5)], CancellationToken.None);

        Assert.Equal(Bytes(1, 5), (await Store.ReadAsync(Actor(1), CancellationToken.None))!.Value.State.ToArray());
        Assert.Equal(Bytes(2, 5), (await Store.ReadAsync(Actor(2), CancellationToken.None))!.Value.State.ToArray());
    }

    [Fact]
    public async Task Of_one_version_the_highest_sequence_stays()
    {
        // One version is one state, but what rests with it grows while the actor only reads.
        await Store.WriteAsync([State(1, 5) with { Sequence = 2 }], CancellationToken.None);
        await Store.WriteAsync([new StoredState(Actor(1), 5, new byte[] { 1 }) { Sequence = 3 }], CancellationToken.None);
        await Store.WriteAsync([new StoredState(Actor(1), 5, new byte[] { 9 }) { Sequence = 2 }], CancellationToken.None); // a late writer
        await Store.WriteAsync([new StoredState(Actor(1), 5, new byte[] { 8 }) { Sequence = 3 }], CancellationToken.None); // the same write again
        await Store.WriteAsync([new StoredState(Actor(2), 5, new byte[] { 3 }) { Sequence = 7 }, new StoredState(Actor(2), 5, new byte[] { 2 }) { Sequence = 6 }], CancellationToken.None);

        var one = (await Store.ReadAsync(Actor(1), CancellationToken.None))!.Value;
        Assert.Equal(new byte[] { 1 }, one.State.ToArray());
        Assert.Equal(3, one.Sequence);
        var two = (await Store.ReadAsync(Actor(2), CancellationToken.None))!.Value;
        Assert.Equal(new byte[] { 3 }, two.State.ToArray());
        Assert.Equal(7, two.Sequence);
    }

    [Fact]
    public async Task One_write_holds_many_actors_and_repeats_of_one()
    {
        var states = Enumerable.Range(0, 2_000).Select(n => State(n, n + 1)).Append(State(7, 1)).Append(State(7, 100)).ToList();

        await Store.WriteAsync(states, CancellationToken.None);

        for (var n = 0; n < 2_000; n += 97)
        {
            Assert.Equal(n == 7 ? 100 : n + 1, (await Store.ReadAsync(Actor(n), CancellationToken.None))!.Value.Version);
        }
    }

    [Fact]
    public async Task Writers_at_once_leave_the_highest_version()
    {
        await Task.WhenAll(Enumerable.Range(1, 40).Select(version => Task.Run(() => Store.WriteAsync([State(1, version), State(2, 41 - version)], CancellationToken.None))));

        Assert.Equal(40, (await Store.ReadAsync(Actor(1), CancellationToken.None))!.Value.Version);
        Assert.Equal(40, (await Store.ReadAsync(Actor(2), CancellationToken.None))!.Value.Version);
    }
}

public sealed class InMemoryStateStoreTests : StateStoreContract
{
    protected override IStateStore Store { get; } = new InMemoryStateStore();
}

/// <summary>The SQLite file store: the contract on a real file, and what a file adds (reopening, two writers, garbage).</summary>
public sealed class SqliteStateStoreTests : StateStoreContract
{
    private readonly TempDirectory temp = new();
    private readonly SqliteStateStore store;

    public SqliteStateStoreTests() => store = new SqliteStateStore(System.IO.Path.Combine(temp.Path, "states", "states.db"));

    protected override IStateStore Store => store;

    public override async ValueTask DisposeAsync()
    {
        await store.DisposeAsync();
        temp.Dispose();
    }

    [Fact]
    public async Task What_was_written_is_there_after_the_store_is_opened_again()
    {
        await store.WriteAsync([State(1, 2), State(2, 9)], CancellationToken.None);
        await store.DisposeAsync();

        await using var again = new SqliteStateStore(store.Path);
        Assert.Equal(Bytes(2, 9), (await again.ReadAsync(Actor(2), CancellationToken.None))!.Value.State.ToArray());
        Assert.Equal(2, (await again.ReadAsync(Actor(1), CancellationToken.None))!.Value.Version);
    }

    [Fact]
    public async Task Two_stores_on_one_file_see_each_others_writes_and_keep_the_highest_version()
    {
        await using var other = new SqliteStateStore(store.Path); // a second silo on the same folder
        await Task.WhenAll(
            Task.Run(async () =>
            {
                for (var v = 1; v <= 30; v += 2)
                {
                    await store.WriteAsync([State(1, v)], CancellationToken.None);
                }
            }),
            Task.Run(async () =>
            {
                for (var v = 2; v <= 30; v += 2)
                {
                    await other.WriteAsync([State(1, v)], CancellationToken.None);
                }
            }));

        Assert.Equal(30, (await store.ReadAsync(Actor(1), CancellationToken.None))!.Value.Version);
        Assert.Equal(30, (await other.ReadAsync(Actor(1), CancellationToken.None))!.Value.Version);
    }

    [Fact]
    public async Task A_state_changed_on_disk_is_refused_in_one_line_naming_the_store_and_the_actor()
    {
        await store.WriteAsync([State(1, 4)], CancellationToken.None);

        // Garbage under the row, beside SQLite's back: the page is intact, the state is not.
        await using (var raw = new SqliteConnection($"Data Source={store.Path};Pooling=False"))
        {
            await raw.OpenAsync();
            await using var damage = raw.CreateCommand();
            damage.CommandText = "UPDATE states SET state = X'00FF00' WHERE key = $key";
            damage.Parameters.AddWithValue("$key", Actor(1).Key);
            Assert.Equal(1, await damage.ExecuteNonQueryAsync());
        }

        var refused = await Assert.ThrowsAsync<InvalidDataException>(() => store.ReadAsync(Actor(1), CancellationToken.None));
        Assert.Equal($"state store '{store.Path}': the entry of {Actor(1)} is corrupt (its checksum does not match its version, sequence and state); the actor is not served from it.", refused.Message);
    }

    [Fact]
    public async Task A_file_that_is_not_a_database_is_refused_naming_it()
    {
        var path = System.IO.Path.Combine(temp.Path, "garbage.db");
        await File.WriteAllBytesAsync(path, [.. Enumerable.Range(0, 8192).Select(i => (byte)(i * 31))]);
        await using var garbage = new SqliteStateStore(path);

        var refused = await Assert.ThrowsAsync<InvalidDataException>(() => garbage.ReadAsync(Actor(1), CancellationToken.None));
        Assert.StartsWith($"state store '{path}' is corrupt or not a SQLite database:", refused.Message);
        Assert.DoesNotContain('\n', refused.Message);
    }
}

/// <summary>The Azure Table store on Azurite: the contract, a state split over several properties, garbage in an entity.</summary>
public sealed class AzureTableStateStoreTests(Azurite azurite) : StateStoreContract, IClassFixture<Azurite>
{
    private readonly AzureTableLogStorageOptions options = new() { ConnectionString = azurite.ConnectionString, TableName = Azurite.NewTableName() };

    private AzureTableStateStore? store;

    protected override IStateStore Store => store ??= new AzureTableStateStore(options);

    [Fact]
    public async Task A_state_larger_than_a_property_reads_back_whole()
    {
        var big = Enumerable.Range(0, (2 * AzureTableStateStore.ChunkBytes) + 17).Select(i => (byte)(i % 251)).ToArray();

        await Store.WriteAsync([new StoredState(Actor(1), 2, big)], CancellationToken.None);

        Assert.Equal(big, (await Store.ReadAsync(Actor(1), CancellationToken.None))!.Value.State.ToArray());
    }

    [Fact]
    public async Task A_state_changed_in_the_table_is_refused_in_one_line_naming_the_table_and_the_actor()
    {
        await Store.WriteAsync([State(1, 4)], CancellationToken.None);
        var table = new Azure.Data.Tables.TableClient(options.ConnectionString, options.StateTableName);
        var (partition, row) = AzureTableStateStore.KeysOf(Actor(1));
        var entity = (await table.GetEntityAsync<Azure.Data.Tables.TableEntity>(partition, row)).Value;
        entity["S0"] = new byte[] { 0, 0xFF, 0 };
        await table.UpdateEntityAsync(entity, entity.ETag, Azure.Data.Tables.TableUpdateMode.Replace);

        var refused = await Assert.ThrowsAsync<InvalidDataException>(() => Store.ReadAsync(Actor(1), CancellationToken.None));
        Assert.Equal($"state store table '{options.StateTableName}': the entry of {Actor(1)} is corrupt (its checksum does not match its version, sequence and state); the actor is not served from it.", refused.Message);
    }
}

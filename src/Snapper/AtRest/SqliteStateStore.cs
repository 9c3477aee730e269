using Microsoft.Data.Sqlite;

namespace Snapper.AtRest;

/// <summary>
/// States at rest in a SQLite file: one row per actor in a table keyed by (type, key). A write is
/// one transaction (one fsync, <c>synchronous=FULL</c> on a write-ahead log), however many actors
/// it holds, so a checkpoint writing thousands of states pays one fsync, where a file per actor
/// would pay one each. Several processes on one machine may share the file (SQLite's locks); a
/// network file system may not, as for the file log. Each row carries a CRC-32C of its version and
/// state, checked on read: SQLite does not check the pages it reads.
/// </summary>
/// <remarks>
/// Microsoft.Data.Sqlite's async methods complete synchronously, so each call runs on the thread
/// pool: a grain awaiting the store never holds an Orleans scheduler thread for a disk write.
/// Writes from this instance are serialized on one connection, which keeps <c>synchronous=FULL</c>
/// (a per-connection setting); reads use pooled connections of their own.
/// </remarks>
public sealed class SqliteStateStore : IStateStore, IAsyncDisposable
{
    private const string Schema = """
        CREATE TABLE IF NOT EXISTS states (
            type TEXT NOT NULL,
            key TEXT NOT NULL,
            version INTEGER NOT NULL,
            sequence INTEGER NOT NULL,
            crc INTEGER NOT NULL,
            state BLOB NOT NULL,
            PRIMARY KEY (type, key)
        ) WITHOUT ROWID;
        """;

    // The higher (version, sequence) wins (IStateStore).
    private const string Upsert = """
        INSERT INTO states (type, key, version, sequence, crc, state) VALUES ($type, $key, $version, $sequence, $crc, $state)
        ON CONFLICT (type, key) DO UPDATE SET version = excluded.version, sequence = excluded.sequence, crc = excluded.crc, state = excluded.state
        WHERE (excluded.version, excluded.sequence) > (states.version, states.sequence);
        """;

    private const string Select = "SELECT version, sequence, crc, state FROM states WHERE type = $type AND key = $key;";

    // The writer's page cache (negative: in KiB): a checkpoint's rows land all over a table of
    // millions, and SQLite's default of 2 MiB would read most pages again for each.
    private const int CachePages = -65536;

    private readonly string connectionString;
    private readonly SemaphoreSlim writing = new(1, 1);
    private SqliteConnection? writer;

    /// <summary>A store in <paramref name="path"/>, created (with its folder) at the first write or read.</summary>
    public SqliteStateStore(string path)
    {
        ArgumentException.ThrowIfNullOrEmpty(path);
        Path = System.IO.Path.GetFullPath(path);
        connectionString = new SqliteConnectionStringBuilder
        {
            DataSource = Path,
            Mode = SqliteOpenMode.ReadWriteCreate,
            Pooling = true,
            DefaultTimeout = 30, // seconds a statement waits for another process's lock
        }.ToString();
    }

    /// <summary>The database file.</summary>
    public string Path { get; }

    /// <inheritdoc />
    public Task<StoredState?> ReadAsync(ActorId actor, CancellationToken cancellationToken) =>
        Task.Run(() => Guarded(() => Read(actor)), cancellationToken);

    /// <inheritdoc />
    /// <remarks>On one connection, one statement prepared once.</remarks>
    public Task<IReadOnlyList<StoredState?>> ReadManyAsync(IReadOnlyList<ActorId> actors, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(actors);
        return Task.Run(() => Guarded(() => ReadMany(actors, cancellationToken)), cancellationToken);
    }

    /// <inheritdoc />
    public async Task WriteAsync(IReadOnlyList<StoredState> states, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(states);
        if (states.Count == 0)
        {
            return;
        }

        await writing.WaitAsync(cancellationToken);
        try
        {
            await Task.Run(() => Guarded(() => Write(states)), cancellationToken);
        }
        finally
        {
            writing.Release();
        }
    }

    /// <inheritdoc />
    public async ValueTask DisposeAsync()
    {
        await writing.WaitAsync();
        try
        {
            if (writer is not null)
            {
                await writer.DisposeAsync();
                writer = null;
            }

            SqliteConnection.ClearAllPools();
        }
        finally
        {
            writing.Release();
        }
    }

    private StoredState? Read(ActorId actor) => ReadMany([actor], CancellationToken.None)[0];

    private IReadOnlyList<StoredState?> ReadMany(IReadOnlyList<ActorId> actors, CancellationToken cancellationToken)
    {
        using var connection = Open();
        using var select = connection.CreateCommand();
        select.CommandText = Select;
        var type = select.Parameters.Add("$type", SqliteType.Text);
        var key = select.Parameters.Add("$key", SqliteType.Text);
        if (actors.Count > 1)
        {
            select.Prepare();
        }

        var found = new StoredState?[actors.Count];
        foreach (var i in InKeyOrder(actors.Count, i => actors[i]))
        {
            cancellationToken.ThrowIfCancellationRequested();
            (type.Value, key.Value) = (actors[i].Type, actors[i].Key);
            using var row = select.ExecuteReader();
            found[i] = row.Read() ? Entry(actors[i], row) : null;
        }

        return found;
    }

    // Indexes 0..count-1 in the table's key order (type, key; SQLite compares text bytewise): many
    // rows read or written in that order walk the table's B-tree once instead of jumping about it.
    private static IEnumerable<int> InKeyOrder(int count, Func<int, ActorId> actor) =>
        count < 2 ? Enumerable.Range(0, count) : Enumerable.Range(0, count).OrderBy(i => actor(i).Type, StringComparer.Ordinal).ThenBy(i => actor(i).Key, StringComparer.Ordinal);

    private StoredState Entry(ActorId actor, SqliteDataReader row)
    {
        var entry = new StoredState(actor, row.GetInt64(0), (byte[])row.GetValue(3)) { Sequence = row.GetInt64(1) };
        if (StateChecksum.Of(entry) != (uint)row.GetInt64(2))
        {
            throw new InvalidDataException($"state store '{Path}': the entry of {actor} is corrupt (its checksum does not match its version, sequence and state); the actor is not served from it.");
        }

        return entry;
    }

    private bool Write(IReadOnlyList<StoredState> states)
    {
        writer ??= OpenWriter();
        using var transaction = writer.BeginTransaction(deferred: false); // takes the write lock at once: no upgrade to fail later
        using var upsert = writer.CreateCommand();
        upsert.Transaction = transaction;
        upsert.CommandText = Upsert;
        var type = upsert.Parameters.Add("$type", SqliteType.Text);
        var key = upsert.Parameters.Add("$key", SqliteType.Text);
        var version = upsert.Parameters.Add("$version", SqliteType.Integer);
        var sequence = upsert.Parameters.Add("$sequence", SqliteType.Integer);
        var crc = upsert.Parameters.Add("$crc", SqliteType.Integer);
        var state = upsert.Parameters.Add("$state", SqliteType.Blob);
        upsert.Prepare();
        foreach (var entry in InKeyOrder(states.Count, i => states[i].Actor).Select(i => states[i]))
        {
            (type.Value, key.Value, version.Value, sequence.Value) = (entry.Actor.Type, entry.Actor.Key, entry.Version, entry.Sequence);
            (crc.Value, state.Value) = ((long)StateChecksum.Of(entry), entry.State.ToArray());
            upsert.ExecuteNonQuery();
        }

        transaction.Commit();
        return true;
    }

    private SqliteConnection OpenWriter()
    {
        var connection = Open();
        using var setup = connection.CreateCommand();
        setup.CommandText = $"PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA cache_size = {CachePages};" + Schema;
        setup.ExecuteNonQuery();
        return connection;
    }

    private SqliteConnection Open()
    {
        Directory.CreateDirectory(System.IO.Path.GetDirectoryName(Path)!);
        var connection = new SqliteConnection(connectionString);
        connection.Open();
        if (writer is null)
        {
            // A reader before any write here: the table may not exist yet.
            using var schema = connection.CreateCommand();
            schema.CommandText = Schema;
            schema.ExecuteNonQuery();
        }

        return connection;
    }

    // SQLite's own codes for a file that is not a database or is damaged: one line naming the file.
    private T Guarded<T>(Func<T> work)
    {
        try
        {
            return work();
        }
        catch (SqliteException e) when (e.SqliteErrorCode is 11 or 26)
        {
            throw new InvalidDataException($"state store '{Path}' is corrupt or not a SQLite database: {e.Message}", e);
        }
    }
}

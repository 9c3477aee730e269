using System.Text;
using Azure;
using Azure.Data.Tables;
using Snapper.AtRest;

namespace Snapper.Logging.AzureTable;

/// <summary>
/// States at rest in an Azure table (<see cref="IStateStore"/>): an entity per actor. Its row key is
/// the actor (type and key, base64url: keys may hold any character, row keys may not); its
/// partition one of <see cref="Partitions"/> buckets by a hash of it, so the service can spread the
/// entities. The state is split into binary properties of up to <see cref="ChunkBytes"/> (the
/// service's limit is 64 KiB a property, 1 MiB an entity), beside its version and a checksum
/// (<see cref="StateChecksum"/>) checked on read.
/// </summary>
/// <remarks>
/// A write keeps the higher version by optimistic concurrency: the entity is read, and replaced only
/// if its version is not higher, under the ETag read (or added if there was none); a writer that lost a
/// race reads again. Entities are written one at a time (an entity-group transaction cannot make its
/// operations conditional on versions read in it), at most <see cref="Parallelism"/> at once.
/// </remarks>
public sealed class AzureTableStateStore : IStateStore
{
    /// <summary>State bytes per property.</summary>
    internal const int ChunkBytes = 60 * 1024;

    /// <summary>Properties a state may take: what fits an entity beside its keys and version.</summary>
    internal const int MaxChunks = 15;

    /// <summary>Partitions the entities are spread over.</summary>
    internal const int Partitions = 64;

    private const int Parallelism = 16;

    private readonly TableClient table;
    private Task? created; // the table's creation; a failed one is tried again at the next use

    /// <summary>A store in the table <paramref name="options"/> names (the log's options: the same account, its own table); created at first use.</summary>
    /// <exception cref="ArgumentException">The options cannot work (see <see cref="AzureTableLogStorageOptions.Validate"/>).</exception>
    public AzureTableStateStore(AzureTableLogStorageOptions options)
    {
        ArgumentNullException.ThrowIfNull(options);
        options.Validate();
        table = new TableServiceClient(options.ConnectionString).GetTableClient(options.StateTableName);
    }

    /// <inheritdoc />
    public async Task<StoredState?> ReadAsync(ActorId actor, CancellationToken cancellationToken)
    {
        await Created();
        var (partition, row) = KeysOf(actor);
        var found = await table.GetEntityIfExistsAsync<TableEntity>(partition, row, cancellationToken: cancellationToken);
        return found.HasValue ? Decode(actor, found.Value!) : null;
    }

    /// <inheritdoc />
    public async Task WriteAsync(IReadOnlyList<StoredState> states, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(states);
        await Created();

        // Of one actor's states only the highest can stay: the others are not sent.
        var highest = new Dictionary<ActorId, StoredState>();
        foreach (var state in states)
        {
            if (state.State.Length > ChunkBytes * MaxChunks)
            {
                throw new ArgumentException($"The state of {state.Actor} takes {state.State.Length:N0} bytes; an Azure table entity holds at most {ChunkBytes * MaxChunks:N0}.", nameof(states));
            }

            if (!highest.TryGetValue(state.Actor, out var held) || IStateStore.Higher(state, held))
            {
                highest[state.Actor] = state;
            }
        }

        await Parallel.ForEachAsync(highest.Values, new ParallelOptions { MaxDegreeOfParallelism = Parallelism, CancellationToken = cancellationToken }, Write);
    }

    private async ValueTask Write(StoredState state, CancellationToken cancellationToken)
    {
        var (partition, row) = KeysOf(state.Actor);
        while (true)
        {
            var held = await table.GetEntityIfExistsAsync<TableEntity>(partition, row, select: [nameof(StoredState.Version), nameof(StoredState.Sequence)], cancellationToken: cancellationToken);
            try
            {
                if (!held.HasValue)
                {
                    await table.AddEntityAsync(Encode(partition, row, state), cancellationToken);
                }
                else if (held.Value!.GetInt64(nameof(StoredState.Version)) is not { } version
                    || IStateStore.Higher(state, new StoredState(state.Actor, version, default) { Sequence = held.Value.GetInt64(nameof(StoredState.Sequence)) ?? 0 }))
                {
                    await table.UpdateEntityAsync(Encode(partition, row, state), held.Value.ETag, TableUpdateMode.Replace, cancellationToken);
                }

                return;
            }
            catch (RequestFailedException e) when (e.Status is 409 or 412)
            {
                // Another writer added or replaced it since it was read: read again.
            }
        }
    }

    // The table, created at first use. A creation that failed (the service busy or not up yet) is
    // not kept: every activation reads this store, so one failure must not refuse them all.
    private async Task Created()
    {
        var creating = Volatile.Read(ref created);
        if (creating is null || creating.IsFaulted || creating.IsCanceled)
        {
            var fresh = table.CreateIfNotExistsAsync();
            creating = Interlocked.CompareExchange(ref created, fresh, creating) == creating ? fresh : Volatile.Read(ref created)!;
        }

        await creating;
    }

    private static TableEntity Encode(string partition, string row, StoredState state)
    {
        var entity = new TableEntity(partition, row)
        {
            [nameof(StoredState.Version)] = state.Version,
            [nameof(StoredState.Sequence)] = state.Sequence,
            ["Crc"] = (long)StateChecksum.Of(state),
            ["Chunks"] = (state.State.Length + ChunkBytes - 1) / ChunkBytes,
        };
        for (var (i, offset) = (0, 0); offset < state.State.Length; (i, offset) = (i + 1, offset + ChunkBytes))
        {
            entity[$"S{i}"] = state.State.Slice(offset, Math.Min(ChunkBytes, state.State.Length - offset)).ToArray();
        }

        return entity;
    }

    private StoredState Decode(ActorId actor, TableEntity entity)
    {
        var version = entity.GetInt64(nameof(StoredState.Version));
        var sequence = entity.GetInt64(nameof(StoredState.Sequence));
        var crc = entity.GetInt64("Crc");
        var chunks = entity.GetInt32("Chunks");
        var parts = chunks is >= 0 and <= MaxChunks ? Enumerable.Range(0, chunks.Value).Select(i => entity.GetBinary($"S{i}")).ToList() : null;
        if (version is not { } v || sequence is not { } q || crc is not { } c || parts is null || parts.Any(p => p is null))
        {
            throw Corrupt(actor, "it lacks its version, sequence, checksum or state");
        }

        var entry = new StoredState(actor, v, parts.SelectMany(p => p!).ToArray()) { Sequence = q };
        if (StateChecksum.Of(entry) != (uint)c)
        {
            throw Corrupt(actor, "its checksum does not match its version, sequence and state");
        }

        return entry;
    }

    private InvalidDataException Corrupt(ActorId actor, string problem) =>
        new($"state store table '{table.Name}': the entry of {actor} is corrupt ({problem}); the actor is not served from it.");

    // The row key names the actor whatever its key holds; the partition spreads the actors.
    internal static (string Partition, string Row) KeysOf(ActorId actor)
    {
        var name = Encoding.UTF8.GetBytes($"{actor.Type}\n{actor.Key}");
        var bucket = StateChecksum.Of(0, 0, name) % Partitions;
        return ($"s{bucket:D2}", Convert.ToBase64String(name).TrimEnd('=').Replace('+', '-').Replace('/', '_'));
    }
}

using System.Collections.Concurrent;
using System.Runtime.CompilerServices;
using Azure;
using Azure.Data.Tables;

namespace Snapper.Logging.AzureTable;

/// <summary>
/// Snapper's logs in one Azure table. A log is a partition; each record a run of entities whose
/// row keys (<c>{sequence:D19}-{chunk:D5}</c>) sort in append order, each entity holding at most
/// <see cref="ChunkBytes"/> of the record (the property limit is 64 KiB). A group commit is one
/// entity-group transaction, or several in write-ahead order when it passes the service's limits
/// (100 entities, 4 MiB); the group's last entity carries <c>End</c>, and a reader takes a group only
/// with it, so a group is durable exactly when its last transaction is (a crash between its
/// transactions leaves a torn tail that reading drops, as in a file). A failed append stops the log
/// (fail-stop, as the file storage does): its group may be partly written, and appending after it
/// would build on records the writer was told did not happen; the silo's restart recovers. The
/// names of the logs are kept in partition <see cref="IndexPartition"/>, so recovery need not scan
/// the table to find them.
/// </summary>
public sealed class AzureTableLogStorage : ILogStorage
{
    /// <summary>Record bytes per entity, under the 64 KiB binary property limit.</summary>
    internal const int ChunkBytes = 60 * 1024;

    /// <summary>The partition listing every log (its row keys are the logs' partition keys).</summary>
    internal const string IndexPartition = "~logs";

    // Entity-group transaction limits, with room for each entity's envelope and base64 growth.
    private const int MaxEntitiesPerTransaction = 100;
    private const long MaxTransactionBytes = 3 * 1024 * 1024;

    private readonly TableClient table;
    private readonly Lazy<Task> created;
    private readonly ConcurrentDictionary<string, LogHead> heads = new(StringComparer.Ordinal);

    /// <summary>A storage in the table <paramref name="options"/> names; the table is created at first use.</summary>
    /// <exception cref="ArgumentException">The options cannot work (see <see cref="AzureTableLogStorageOptions.Validate"/>).</exception>
    public AzureTableLogStorage(AzureTableLogStorageOptions options)
    {
        ArgumentNullException.ThrowIfNull(options);
        options.Validate();
        table = new TableServiceClient(options.ConnectionString).GetTableClient(options.TableName);
        created = new Lazy<Task>(() => table.CreateIfNotExistsAsync());
    }

    /// <inheritdoc />
    public async Task AppendAsync(string log, IReadOnlyList<ReadOnlyMemory<byte>> group, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(log);
        ArgumentNullException.ThrowIfNull(group);
        var head = await HeadOf(log, cancellationToken);
        await head.Gate.WaitAsync(cancellationToken);
        try
        {
            if (head.Failure is { } failure)
            {
                throw new IOException($"Log '{log}' in table '{table.Name}' stopped after a failed write ({failure.Message}); restart the silo to recover from what is durable.", failure);
            }

            var actions = new List<TableTransactionAction>();
            long bytes = 0;
            var sequence = head.Next;
            var first = sequence;
            for (var r = 0; r < group.Count; r++)
            {
                var record = group[r];
                var chunks = Math.Max(1, (record.Length + ChunkBytes - 1) / ChunkBytes);
                for (var chunk = 0; chunk < chunks; chunk++)
                {
                    var data = record.Slice(chunk * ChunkBytes, Math.Min(ChunkBytes, record.Length - (chunk * ChunkBytes))).ToArray();
                    if (actions.Count == MaxEntitiesPerTransaction || (actions.Count > 0 && bytes + data.Length > MaxTransactionBytes))
                    {
                        await table.SubmitTransactionAsync(actions, cancellationToken);
                        actions = [];
                        bytes = 0;
                    }

                    var entity = new TableEntity(head.PartitionKey, RowKey(sequence, chunk))
                    {
                        ["Data"] = data,
                        ["Chunks"] = chunks,
                        ["Group"] = first, // a group left without End is told from the next by this
                    };
                    if (r == group.Count - 1 && chunk == chunks - 1)
                    {
                        entity["End"] = true; // the group is durable once this is
                    }

                    actions.Add(new TableTransactionAction(TableTransactionActionType.Add, entity));
                    bytes += data.Length;
                }

                sequence++;
            }

            if (actions.Count > 0)
            {
                await table.SubmitTransactionAsync(actions, cancellationToken);
            }

            head.Next = sequence;
        }
        catch (Exception e) when (e is RequestFailedException or IOException or OperationCanceledException or AggregateException)
        {
            head.Failure ??= e;
            throw;
        }
        finally
        {
            head.Gate.Release();
        }
    }

    /// <inheritdoc />
    public async IAsyncEnumerable<ReadOnlyMemory<byte>> ReadAsync(string log, [EnumeratorCancellation] CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(log);
        await created.Value.WaitAsync(cancellationToken);
        var partition = PartitionKey(log);
        var pending = new List<byte[]>();
        var group = new List<byte[]>(); // records of a group whose End has not been read yet
        long groupId = -1;
        long pendingSequence = -1;
        var pendingChunks = 0;
        await foreach (var entity in table.QueryAsync<TableEntity>(e => e.PartitionKey == partition, cancellationToken: cancellationToken))
        {
            var (sequence, chunk) = ParseRowKey(log, entity.RowKey);
            var entityGroup = entity.GetInt64("Group") ?? sequence;
            if (entityGroup != groupId)
            {
                // A new group: whatever the last one left without its End was torn (a crash or a
                // failed write that the silo restarted after) and never acknowledged.
                (groupId, pendingSequence) = (entityGroup, -1);
                group.Clear();
                pending.Clear();
            }

            if (sequence != pendingSequence)
            {
                if (pending.Count > 0)
                {
                    throw new InvalidDataException($"Log '{log}' in table '{table.Name}': record {pendingSequence} has {pending.Count} of its {pendingChunks} chunks, and record {sequence} follows it.");
                }

                (pendingSequence, pendingChunks) = (sequence, entity.GetInt32("Chunks") ?? 1);
            }

            if (chunk != pending.Count)
            {
                throw new InvalidDataException($"Log '{log}' in table '{table.Name}': record {sequence} is missing chunk {pending.Count}.");
            }

            pending.Add(entity.GetBinary("Data") ?? []);
            if (pending.Count == pendingChunks)
            {
                group.Add(pending.Count == 1 ? pending[0] : [.. pending.SelectMany(c => c)]);
                pending.Clear();
            }

            if (entity.GetBoolean("End") == true)
            {
                if (pending.Count > 0)
                {
                    throw new InvalidDataException($"Log '{log}' in table '{table.Name}': the group ending at record {sequence} ends inside it.");
                }

                foreach (var record in group)
                {
                    yield return record;
                }

                group.Clear();
            }
        }

        // Records after the last End are a group the writer did not finish (a crash, or a failed
        // write that stopped the log): never acknowledged, so they are dropped.
    }

    /// <inheritdoc />
    public async IAsyncEnumerable<string> ListAsync([EnumeratorCancellation] CancellationToken cancellationToken)
    {
        await created.Value.WaitAsync(cancellationToken);
        await foreach (var entity in table.QueryAsync<TableEntity>(e => e.PartitionKey == IndexPartition, select: ["RowKey"], cancellationToken: cancellationToken))
        {
            yield return Uri.UnescapeDataString(entity.RowKey);
        }
    }

    private async Task<LogHead> HeadOf(string log, CancellationToken cancellationToken)
    {
        if (heads.TryGetValue(log, out var head))
        {
            return head;
        }

        await created.Value.WaitAsync(cancellationToken);
        var partition = PartitionKey(log);

        // One writer per log (its silo): continue after the last record already there.
        long next = 0;
        await foreach (var entity in table.QueryAsync<TableEntity>(e => e.PartitionKey == partition, select: ["RowKey"], cancellationToken: cancellationToken))
        {
            next = ParseRowKey(log, entity.RowKey).Sequence + 1;
        }

        await table.UpsertEntityAsync(new TableEntity(IndexPartition, partition), TableUpdateMode.Replace, cancellationToken);
        return heads.GetOrAdd(log, new LogHead(partition, next));
    }

    // Partition and row keys may not hold '/', '\', '#', '?' or control characters: escape them.
    private static string PartitionKey(string log) => Uri.EscapeDataString(log);

    private static string RowKey(long sequence, int chunk) => $"{sequence:D19}-{chunk:D5}";

    private (long Sequence, int Chunk) ParseRowKey(string log, string rowKey) =>
        rowKey.Length == 25 && rowKey[19] == '-' && long.TryParse(rowKey.AsSpan(0, 19), out var sequence) && int.TryParse(rowKey.AsSpan(20), out var chunk)
            ? (sequence, chunk)
            : throw new InvalidDataException($"Log '{log}' in table '{table.Name}' has a row '{rowKey}' that is not a Snapper log record.");

    private sealed class LogHead(string partitionKey, long next)
    {
        public string PartitionKey { get; } = partitionKey;

        public SemaphoreSlim Gate { get; } = new(1, 1);

        public long Next { get; set; } = next;

        /// <summary>Why the log stopped, once an append failed (fail-stop).</summary>
        public Exception? Failure { get; set; }
    }
}

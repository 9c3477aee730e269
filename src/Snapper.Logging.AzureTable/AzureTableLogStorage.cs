using System.Collections.Concurrent;
using System.Runtime.CompilerServices;
using Azure;
using Azure.Data.Tables;

namespace Snapper.Logging.AzureTable;

/// <summary>
/// Snapper's logs in one Azure table. A log is a partition of entities whose row keys
/// (<c>{sequence:D19}-{chunk:D5}</c>) sort in append order: the records of a group are packed
/// together, as many as fit in <see cref="ChunkBytes"/> (the property limit is 64 KiB), under the
/// row key of the first one, and a record too large for that is a run of chunks of its own
/// (<see cref="LogEntity"/>). A group commit is one Add when its records fit one entity (the usual
/// case), else one entity-group transaction, or several in write-ahead order when it passes the
/// service's limits (100 entities, 4 MiB); the group's last entity carries <c>End</c>, and a reader
/// takes a group only with it, so a group is durable exactly when its last write is (a crash
/// between its transactions leaves a torn tail that reading drops, as in a file). The names of the
/// logs are kept in partition <see cref="IndexPartition"/>, so recovery need not scan the table to
/// find them.
/// </summary>
/// <remarks>
/// <para><b>A failed append is settled, not guessed.</b> A write that fails (a timeout, storage
/// down) may still have landed, or land later. Before the append reports anything, the storage
/// settles it by adding a <em>void</em> entity at the row of the group's <c>End</c>: if that row is
/// taken, the group's last transaction landed and the group is durable (the append succeeds after
/// all); if the void lands, that transaction can never land (entity-group transactions are atomic and
/// Add fails on a taken row), so the group is not durable, the append fails for certain, readers drop
/// what landed of it, and the log goes on after it: service resumes once storage is back. It keeps
/// trying for <see cref="AzureTableLogStorageOptions.InDoubtPatience"/>; past that the outcome is
/// still unknown and the log stops (fail-stop, as the file storage does), so nothing is built on a
/// group whose fate is unknown, and the silo's restart recovers from what is durable.</para>
/// </remarks>
public sealed class AzureTableLogStorage : ILogStorage
{
    /// <summary>Record bytes per entity, under the 64 KiB binary property limit.</summary>
    internal const int ChunkBytes = 60 * 1024;

    /// <summary>The partition listing every log (its row keys are the logs' partition keys).</summary>
    internal const string IndexPartition = "~logs";

    // Entity-group transaction limits, with room for each entity's envelope and base64 growth.
    private const int MaxEntitiesPerTransaction = 100;
    private const long MaxTransactionBytes = 3 * 1024 * 1024;

    private static readonly TimeSpan SettleRetry = TimeSpan.FromMilliseconds(200);

    private readonly TableClient table;
    private readonly TimeSpan inDoubtPatience;
    private readonly Lazy<Task> created;
    private readonly ConcurrentDictionary<string, LogHead> heads = new(StringComparer.Ordinal);
    private readonly ConcurrentDictionary<string, string> owners = new(StringComparer.Ordinal); // log → the incarnation that claimed it here

    /// <summary>A storage in the table <paramref name="options"/> names; the table is created at first use.</summary>
    /// <exception cref="ArgumentException">The options cannot work (see <see cref="AzureTableLogStorageOptions.Validate"/>).</exception>
    public AzureTableLogStorage(AzureTableLogStorageOptions options)
    {
        ArgumentNullException.ThrowIfNull(options);
        options.Validate();
        table = new TableServiceClient(options.ConnectionString).GetTableClient(options.TableName);
        inDoubtPatience = options.InDoubtPatience;
        created = new Lazy<Task>(() => table.CreateIfNotExistsAsync());
    }

    /// <inheritdoc />
    public async Task AppendAsync(string log, IReadOnlyList<ReadOnlyMemory<byte>> group, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(log);
        ArgumentNullException.ThrowIfNull(group);
        if (group.Count == 0)
        {
            return;
        }

        var head = await HeadOf(log, cancellationToken);
        await head.Gate.WaitAsync(cancellationToken);
        try
        {
            if (head.Failure is LogFencedException)
            {
                throw new LogFencedException($"Log '{log}' in table '{table.Name}' was fenced: its owner {head.Owner} was declared dead and failed over.");
            }

            if (head.Failure is { } failure)
            {
                throw new IOException($"Log '{log}' in table '{table.Name}' stopped after a write whose outcome stayed unknown ({failure.Message}); restart the silo to recover from what is durable.", failure);
            }

            var first = head.Next;
            var entities = LogEntity.Of(group, first, ChunkBytes);
            try
            {
                await Write(head, entities, first, cancellationToken);
            }
            catch (Exception e) when (e is RequestFailedException or IOException or OperationCanceledException or AggregateException)
            {
                if (await TryFindFence(head, first) is { } fence)
                {
                    if (fence.Owner == head.Owner)
                    {
                        // Declared dead and fenced: the group counts only if it landed whole before the fence.
                        var landed = await EndLanded(head, first, entities[^1]);
                        head.Failure = new LogFencedException($"Log '{log}' in table '{table.Name}' was fenced at record {fence.Sequence} by the failover of its owner {head.Owner}.");
                        if (landed)
                        {
                            head.Next = first + group.Count;
                            return;
                        }

                        throw head.Failure;
                    }

                    if (fence.Sequence == first)
                    {
                        // An earlier owner was fenced after this one began: its fence took this
                        // group's first row, so nothing of the group landed. Write on after it.
                        head.Next = first + 1;
                        entities = LogEntity.Of(group, first = head.Next, ChunkBytes);
                        try
                        {
                            await Write(head, entities, first, cancellationToken);
                            head.Next = first + group.Count;
                            return;
                        }
                        catch (Exception again) when (again is RequestFailedException or IOException or OperationCanceledException or AggregateException)
                        {
                            e = again;
                        }
                    }
                }

                var durable = await Settle(head, first, entities[^1]);
                if (durable == false && await TryFindFence(head, first) is { } late && late.Owner == head.Owner)
                {
                    // The fence was not readable before (storage was down), and is there: the log ends.
                    head.Failure = new LogFencedException($"Log '{log}' in table '{table.Name}' was fenced at record {late.Sequence} by the failover of its owner {head.Owner}.");
                    throw head.Failure;
                }

                if (durable is null)
                {
                    head.Failure ??= e;
                    throw;
                }

                head.Next = first + group.Count; // settled either way: the log goes on after the group
                if (durable == false)
                {
                    throw new IOException($"Log '{log}' in table '{table.Name}' did not take a group of {group.Count} record(s) ({e.Message}); the group is void and the log goes on after it.", e);
                }

                return;
            }

            head.Next = first + group.Count;
        }
        finally
        {
            head.Gate.Release();
        }
    }

    // The group's entities as entity-group transactions in write-ahead order, the last carrying End.
    private async Task Write(LogHead head, List<LogEntity> entities, long first, CancellationToken cancellationToken)
    {
        var actions = new List<TableTransactionAction>();
        long bytes = 0;
        for (var i = 0; i < entities.Count; i++)
        {
            var e = entities[i];
            if (actions.Count == MaxEntitiesPerTransaction || (actions.Count > 0 && bytes + e.Data.Length > MaxTransactionBytes))
            {
                await table.SubmitTransactionAsync(actions, cancellationToken);
                actions = [];
                bytes = 0;
            }

            var entity = new TableEntity(head.PartitionKey, RowKey(e.Sequence, e.Chunk))
            {
                ["Data"] = e.Data,
                ["Chunks"] = e.Chunks,
                ["Group"] = first, // a group left without End is told from the next by this
            };
            if (e.Records > 0)
            {
                entity["Records"] = e.Records; // a packed run of whole records
            }

            if (i == entities.Count - 1)
            {
                entity["End"] = true; // the group is durable once this is
            }

            actions.Add(new TableTransactionAction(TableTransactionActionType.Add, entity));
            bytes += e.Data.Length;
        }

        if (actions.Count == 1)
        {
            // A group in one entity (most are: LogEntity packs records) is as atomic as a single
            // Add, which costs the service and the client less than a one-entity transaction: no
            // multipart batch to build and parse (docs/decisions.md).
            await table.AddEntityAsync((TableEntity)actions[0].Entity, cancellationToken);
            return;
        }

        await table.SubmitTransactionAsync(actions, cancellationToken);
    }

    // Whether the group that starts at `first` and ends with entity `end` is durable: true if its
    // End entity is there, false once a void entity holds that row (so the End can never land),
    // null if storage gave neither answer within the patience (the group stays in doubt).
    private async Task<bool?> Settle(LogHead head, long first, LogEntity end)
    {
        var deadline = DateTime.UtcNow + inDoubtPatience;

        // The void names the records the End's entity would have held, so a storage opened later
        // numbers its records after them, as this one does.
        var fence = new TableEntity(head.PartitionKey, RowKey(end.Sequence, end.Chunk)) { ["Group"] = first, ["Void"] = true, ["Records"] = end.Records };
        while (true)
        {
            try
            {
                using var attempt = new CancellationTokenSource(SettleRetry * 10);
                await table.AddEntityAsync(fence, attempt.Token);
                return false;
            }
            catch (RequestFailedException e) when (e.Status == 409)
            {
                // The End is there (the group's last transaction landed), or a fence took its row.
                return await EndLanded(head, first, end);
            }
            catch (Exception e) when (e is RequestFailedException or IOException or OperationCanceledException or AggregateException)
            {
                if (DateTime.UtcNow + SettleRetry > deadline)
                {
                    return null;
                }

                await Task.Delay(SettleRetry);
            }
        }
    }

    // The first fence at or after the group's first row; null if none, or if storage did not answer
    // (a failed write is then settled as any other, and the fence looked for again).
    private async Task<(long Sequence, string? Owner)?> TryFindFence(LogHead head, long first)
    {
        try
        {
            using var attempt = new CancellationTokenSource(SettleRetry * 10);
            return await AzureTableFence.FindAsync(table, head.PartitionKey, first, attempt.Token);
        }
        catch (Exception e) when (e is RequestFailedException or IOException or OperationCanceledException or AggregateException)
        {
            return null;
        }
    }

    // Whether the row of the group's End holds that End (not a fence, nor a void).
    private async Task<bool> EndLanded(LogHead head, long first, LogEntity end)
    {
        var row = await table.GetEntityIfExistsAsync<TableEntity>(head.PartitionKey, RowKey(end.Sequence, end.Chunk));
        return row.HasValue && row.Value is { } entity && !AzureTableFence.IsFence(entity) && entity.GetBoolean("Void") != true && entity.GetInt64("Group") == first;
    }

    /// <inheritdoc />
    /// <remarks>Records the owner, whose appends then recognise a fence naming it. A table cannot tell whether another process writes the log: two writers conflict at their next rows, and each stops on a row not its own.</remarks>
    public async Task ClaimAsync(string log, string owner, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(log);
        ArgumentNullException.ThrowIfNull(owner);
        owners[log] = owner;
        (await HeadOf(log, cancellationToken)).Owner = owner;
    }

    /// <inheritdoc />
    /// <remarks>
    /// A fence entity at the row the log's writer writes next (<see cref="AzureTableFence"/>). It
    /// does not look at who claimed the log last: a later owner that meets a fence naming an
    /// earlier one writes on after it.
    /// </remarks>
    public async Task FenceAsync(string log, string owner, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(log);
        ArgumentNullException.ThrowIfNull(owner);
        await created.Value.WaitAsync(cancellationToken);
        await AzureTableFence.PlaceAsync(table, PartitionKey(log), owner, cancellationToken);
    }

    /// <inheritdoc />
    /// <remarks>
    /// A group is read only with its <c>End</c>; a torn group (a crash, a write settled as void) is
    /// dropped. A row that does not decode, or rows missing inside a group, fail the read with
    /// <see cref="InvalidDataException"/> naming the table, partition and row (<see cref="LogRowReader"/>).
    /// </remarks>
    public async IAsyncEnumerable<ReadOnlyMemory<byte>> ReadAsync(string log, [EnumeratorCancellation] CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(log);
        await created.Value.WaitAsync(cancellationToken);
        var partition = PartitionKey(log);
        var reader = new LogRowReader(log, table.Name, partition);
        await foreach (var entity in table.QueryAsync<TableEntity>(e => e.PartitionKey == partition, cancellationToken: cancellationToken))
        {
            foreach (var record in reader.Read(entity))
            {
                yield return record;
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

    /// <inheritdoc />
    /// <remarks>The mark is the next record's sequence number.</remarks>
    public async Task<long> SealAsync(string log, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(log);
        var head = await HeadOf(log, cancellationToken);
        await head.Gate.WaitAsync(cancellationToken);
        try
        {
            return head.Next;
        }
        finally
        {
            head.Gate.Release();
        }
    }

    /// <inheritdoc />
    /// <remarks>
    /// Deletes the entities below the mark newest first, in entity-group transactions: a deletion
    /// that stops part way leaves the older records with the end of their last group gone, which a
    /// reader drops as a torn group, and never a record missing its first chunks.
    /// </remarks>
    public async Task TruncateAsync(string log, long mark, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(log);
        await created.Value.WaitAsync(cancellationToken);
        var partition = PartitionKey(log);
        var below = RowKey(mark, 0);
        var doomed = new List<string>();
        await foreach (var entity in table.QueryAsync<TableEntity>(e => e.PartitionKey == partition && e.RowKey.CompareTo(below) < 0, select: ["RowKey"], cancellationToken: cancellationToken))
        {
            doomed.Add(entity.RowKey);
        }

        for (var end = doomed.Count; end > 0; end -= MaxEntitiesPerTransaction)
        {
            var start = Math.Max(0, end - MaxEntitiesPerTransaction);
            var actions = new List<TableTransactionAction>(end - start);
            for (var i = end - 1; i >= start; i--)
            {
                actions.Add(new TableTransactionAction(TableTransactionActionType.Delete, new TableEntity(partition, doomed[i]), ETag.All));
            }

            await table.SubmitTransactionAsync(actions, cancellationToken);
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
        var rows = new LogRowReader(log, table.Name, partition);
        await foreach (var entity in table.QueryAsync<TableEntity>(e => e.PartitionKey == partition, select: ["RowKey", "Records"], cancellationToken: cancellationToken))
        {
            next = rows.NextAfter(entity);
        }

        await table.UpsertEntityAsync(new TableEntity(IndexPartition, partition), TableUpdateMode.Replace, cancellationToken);
        return heads.GetOrAdd(log, new LogHead(partition, next) { Owner = owners.GetValueOrDefault(log) });
    }

    // Partition and row keys may not hold '/', '\', '#', '?' or control characters: escape them.
    private static string PartitionKey(string log) => Uri.EscapeDataString(log);

    internal static string RowKey(long sequence, int chunk) => LogRowReader.RowKey(sequence, chunk);

    private sealed class LogHead(string partitionKey, long next)
    {
        public string PartitionKey { get; } = partitionKey;

        public SemaphoreSlim Gate { get; } = new(1, 1);

        public long Next { get; set; } = next;

        /// <summary>Why the log stopped, once an append failed (fail-stop) or the log was fenced.</summary>
        public Exception? Failure { get; set; }

        /// <summary>The silo incarnation that claimed the log here (null: none did).</summary>
        public string? Owner { get; set; }
    }
}

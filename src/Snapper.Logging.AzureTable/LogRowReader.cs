using Azure.Data.Tables;

namespace Snapper.Logging.AzureTable;

/// <summary>
/// Turns one log's rows, in row-key order, back into its records, a whole group at a time: a group
/// counts only once its last entity (<c>End</c>) is read. A torn group (entities left without their
/// <c>End</c>, or settled by a void entity, or cut off by a fence) is dropped, as it was never acknowledged. Every other
/// row either decodes or fails the read with <see cref="InvalidDataException"/> naming the table,
/// partition and row key; none is skipped, since records may depend on it.
/// </summary>
/// <remarks>
/// A group's entities are written in row-key order, a prefix of them at a time, so a group that
/// ends must start at its own first record (its <c>Group</c>) and have no row missing in between;
/// rows missing there were lost, not torn.
/// </remarks>
internal sealed class LogRowReader(string log, string table, string partition)
{
    private readonly List<byte[]> group = []; // records of a group whose End has not been read yet
    private readonly List<byte[]> pending = []; // chunks of a record too large for one entity
    private long groupId = -1;
    private long nextSequence; // where the current group's next entity must start
    private int nextChunk;
    private int pendingChunks;

    /// <summary>Reads <paramref name="entity"/>; returns the records of the group it ends, or none.</summary>
    public IReadOnlyList<byte[]> Read(TableEntity entity)
    {
        var rowKey = entity.RowKey;
        var (sequence, chunk) = ParseRowKey(rowKey) ?? throw Undecodable(rowKey, "the row key is not a log record's");
        if (AzureTableFence.IsFence(entity))
        {
            // A fenced owner wrote nothing after this (AzureTableFence); what it left of a group
            // without its End was torn. A later owner's groups follow.
            groupId = -1;
            group.Clear();
            pending.Clear();
            return [];
        }

        var (entityGroup, isVoid, records, chunks, data, end) = Properties(entity, sequence);
        if (entityGroup != groupId)
        {
            // A new group: whatever the last one left without its End was torn (a crash, or a
            // failed write the silo restarted after) and never acknowledged.
            (groupId, nextSequence, nextChunk) = (entityGroup, entityGroup, 0);
            group.Clear();
            pending.Clear();
        }

        if (isVoid)
        {
            // A write that failed was settled as not durable here: what landed of its group goes.
            groupId = -1;
            group.Clear();
            pending.Clear();
            return [];
        }

        if (sequence != nextSequence || chunk != nextChunk)
        {
            throw Undecodable(rowKey, $"group {groupId} should go on at row {RowKey(nextSequence, nextChunk)}: the rows between are missing");
        }

        if (records is { } count)
        {
            // A packed run of whole records (LogEntity).
            if (count <= 0 || data is null)
            {
                throw Undecodable(rowKey, count <= 0 ? $"a packed entity that names {count} records" : "a packed entity without Data");
            }

            group.AddRange(LogEntity.Unpack(data, count, out var problem)
                ?? throw Undecodable(rowKey, $"the entity of records {sequence}-{sequence + count - 1} is corrupt: {problem}"));
            (nextSequence, nextChunk) = (sequence + count, 0);
        }
        else
        {
            // A chunk of a record too large to share an entity.
            if (chunk == 0)
            {
                pendingChunks = chunks;
            }

            if (data is null || chunks != pendingChunks || chunk >= chunks)
            {
                throw Undecodable(rowKey, data is null ? "a chunk of a record without Data" : $"chunk {chunk} of record {sequence} does not fit its record's {pendingChunks} chunk(s) (it names {chunks})");
            }

            pending.Add(data);
            (nextSequence, nextChunk) = chunk + 1 < chunks ? (sequence, chunk + 1) : (sequence + 1, 0);
            if (pending.Count == chunks)
            {
                group.Add(pending.Count == 1 ? pending[0] : [.. pending.SelectMany(c => c)]);
                pending.Clear();
            }
        }

        if (!end)
        {
            return [];
        }

        if (pending.Count > 0)
        {
            throw Undecodable(rowKey, $"the group ending at record {sequence} ends inside it");
        }

        var ended = group.ToArray();
        group.Clear();
        return ended;
    }

    /// <summary>The sequence number of the record after those of <paramref name="entity"/> (read with its row key and <c>Records</c> only).</summary>
    public long NextAfter(TableEntity entity)
    {
        var (sequence, _) = ParseRowKey(entity.RowKey) ?? throw Undecodable(entity.RowKey, "the row key is not a log record's");
        return sequence + Math.Max(1, Properties(entity, sequence).Records ?? 1);
    }

    /// <summary>The sequence number and chunk of a row key; null if it is not a log record's.</summary>
    public static (long Sequence, int Chunk)? ParseRowKey(string rowKey) =>
        rowKey.Length == 25 && rowKey[19] == '-' && long.TryParse(rowKey.AsSpan(0, 19), out var sequence) && int.TryParse(rowKey.AsSpan(20), out var chunk) && sequence >= 0 && chunk >= 0
            ? (sequence, chunk)
            : null;

    public static string RowKey(long sequence, int chunk) => $"{sequence:D19}-{chunk:D5}";

    /// <summary>The failure for a row that does not decode: one line naming where it is.</summary>
    public InvalidDataException Undecodable(string rowKey, string why) =>
        new($"Log '{log}' in table '{table}' (partition '{partition}'), row '{rowKey}': {why}. Nothing was skipped: restore the table, or delete the log's rows from this one on to keep the records before it.");

    // The entity's properties as AzureTableLogStorage writes them; a property of another type fails the read.
    private (long Group, bool Void, int? Records, int Chunks, byte[]? Data, bool End) Properties(TableEntity entity, long sequence)
    {
        try
        {
            return (entity.GetInt64("Group") ?? sequence, entity.GetBoolean("Void") == true, entity.GetInt32("Records"),
                entity.GetInt32("Chunks") ?? 1, entity.GetBinary("Data"), entity.GetBoolean("End") == true);
        }
        catch (Exception e) when (e is InvalidOperationException or InvalidCastException or FormatException)
        {
            throw Undecodable(entity.RowKey, $"a property has the wrong type ({e.Message})");
        }
    }
}

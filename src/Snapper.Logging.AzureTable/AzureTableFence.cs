using Azure;
using Azure.Data.Tables;

namespace Snapper.Logging.AzureTable;

/// <summary>
/// Fencing a silo incarnation declared dead out of its log in a table (<see cref="ILogStorage.FenceAsync"/>):
/// a <em>fence</em> entity added at the row the log's writer would write next. Add fails on a taken
/// row and an entity-group transaction is atomic, so the fenced writer can never write that row,
/// nor anything after it (its entities go in row order), and whatever it wrote before the fence
/// counts: the failover reads the log after placing it. The writer learns of the fence from the
/// conflict (<see cref="AzureTableLogStorage"/>); a later owner of the log writes on after it.
/// </summary>
internal static class AzureTableFence
{
    private const int Attempts = 50;

    /// <summary>Places a fence naming <paramref name="owner"/> after the last entity of <paramref name="partition"/>, unless one is there already.</summary>
    public static async Task PlaceAsync(TableClient table, string partition, string owner, CancellationToken cancellationToken)
    {
        for (var attempt = 1; ; attempt++)
        {
            TableEntity? last = null;
            await foreach (var entity in table.QueryAsync<TableEntity>(e => e.PartitionKey == partition, cancellationToken: cancellationToken))
            {
                last = entity;
            }

            if (last is not null && IsFence(last) && last.GetString("Owner") == owner)
            {
                return; // fenced already, and nothing written since
            }

            var (sequence, chunk) = last is null ? (0L, 0) : NextRow(last);
            try
            {
                await table.AddEntityAsync(new TableEntity(partition, LogRowReader.RowKey(sequence, chunk)) { ["Fence"] = true, ["Owner"] = owner }, cancellationToken);
                return;
            }
            catch (RequestFailedException e) when (e.Status == 409 && attempt < Attempts)
            {
                // The writer took that row meanwhile (it is alive): read again and fence after it.
            }
        }
    }

    /// <summary>True for a fence entity.</summary>
    public static bool IsFence(TableEntity entity) => entity.GetBoolean("Fence") == true;

    /// <summary>The first fence at or after row (<paramref name="sequence"/>, 0) of the log, if any, with the owner it fences.</summary>
    public static async Task<(long Sequence, string? Owner)?> FindAsync(TableClient table, string partition, long sequence, CancellationToken cancellationToken)
    {
        var from = LogRowReader.RowKey(sequence, 0);
        var filter = TableClient.CreateQueryFilter($"PartitionKey eq {partition} and RowKey ge {from} and Fence eq {true}");
        await foreach (var entity in table.QueryAsync<TableEntity>(filter, cancellationToken: cancellationToken))
        {
            return (LogRowReader.ParseRowKey(entity.RowKey)?.Sequence ?? sequence, entity.GetString("Owner"));
        }

        return null;
    }

    // The row a writer that wrote `last` writes next: after a packed run (or the void that stands
    // for one), the run's records; after a chunk, the next chunk of its record or the next record.
    private static (long Sequence, int Chunk) NextRow(TableEntity last)
    {
        var (sequence, chunk) = LogRowReader.ParseRowKey(last.RowKey) ?? throw new InvalidDataException($"Log partition '{last.PartitionKey}' has a row '{last.RowKey}' that is not a log record's: it cannot be fenced.");
        if (last.GetInt32("Records") is { } records and > 0)
        {
            return (sequence + records, 0);
        }

        var chunks = last.GetInt32("Chunks") ?? 1;
        return !IsFence(last) && last.GetBoolean("Void") != true && chunk + 1 < chunks ? (sequence, chunk + 1) : (sequence + 1, 0);
    }
}

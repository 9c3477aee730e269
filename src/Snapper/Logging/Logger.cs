using Microsoft.Extensions.Logging;
using Snapper.Diagnostics;

namespace Snapper.Logging;

/// <summary>
/// A logger (Snapper §4.1.1): an in-memory object shared by the actors of a silo that hash to it.
/// It batches the records appended while its previous write was in flight into one storage append
/// (group commit), so many actors share one durable write.
/// </summary>
/// <remarks>
/// <see cref="Append"/> completes only when the record is durable: write-ahead callers await it
/// before sending the message that depends on it.
/// </remarks>
internal sealed class Logger
{
    private readonly string log;
    private readonly ILogStorage storage;
    private readonly SnapperMetrics metrics;
    private readonly ILogger diagnostics;
    private readonly object gate = new();
    private List<Pending> pending = new();
    private List<Pending> spare = new();
    private bool flushing;

    public Logger(string log, ILogStorage storage, SnapperMetrics metrics, ILogger diagnostics)
    {
        this.log = log;
        this.storage = storage;
        this.metrics = metrics;
        this.diagnostics = diagnostics;
    }

    public string Name => log;

    /// <summary>Appends a record; the task completes when it is durable, or faults if storage failed.</summary>
    public Task Append(LogRecord record)
    {
        var entry = new Pending(LogRecordCodec.Encode(record));
        bool startFlush;
        lock (gate)
        {
            pending.Add(entry);
            startFlush = !flushing;
            flushing = true;
        }

        if (startFlush)
        {
            // The flush loop runs off the actors' turns, on the thread pool.
            _ = Task.Run(FlushLoop);
        }

        return entry.Durable.Task;
    }

    private async Task FlushLoop()
    {
        while (true)
        {
            List<Pending> group;
            lock (gate)
            {
                if (pending.Count == 0)
                {
                    flushing = false;
                    return;
                }

                group = pending;
                pending = spare;
                spare = group; // reused once this group is done; only the flush loop touches it
            }

            var records = new ReadOnlyMemory<byte>[group.Count];
            for (var i = 0; i < group.Count; i++)
            {
                records[i] = group[i].Bytes;
            }

            try
            {
                await storage.AppendAsync(log, records, CancellationToken.None).ConfigureAwait(false);
                metrics.LogGroupWritten(group.Count);
                foreach (var entry in group)
                {
                    entry.Durable.TrySetResult();
                }
            }
            catch (Exception e)
            {
                LogMessages.LogWriteFailed(diagnostics, e, log, group.Count);
                var failure = new IOException($"Log '{log}' could not persist a group of {group.Count} record(s): {e.Message}", e);
                foreach (var entry in group)
                {
                    entry.Durable.TrySetException(failure);
                }
            }

            group.Clear();
        }
    }

    private sealed class Pending(byte[] bytes)
    {
        public byte[] Bytes { get; } = bytes;

        public TaskCompletionSource Durable { get; } = new(TaskCreationOptions.RunContinuationsAsynchronously);
    }
}

using Microsoft.Extensions.Logging;
using Snapper.Diagnostics;

namespace Snapper.Logging;

/// <summary>
/// A log writer, the paper's "logger" (Snapper §4.1.1): an in-memory object shared by the actors of
/// a silo that hash to it. It batches the records appended while its previous write was in flight into one storage append
/// (group commit), so many actors share one durable write.
/// </summary>
/// <remarks>
/// <see cref="Append(LogRecord)"/> completes only when the record is durable (the callback of <see cref="AppendSequenced"/> runs then): write-ahead callers await it
/// before sending the message that depends on it.
/// </remarks>
internal sealed class LogWriter
{
    private readonly string log;
    private readonly ILogStorage storage;
    private readonly SnapperMetrics metrics;
    private readonly ILogger diagnostics;
    private readonly object gate = new();
    private List<Pending> pending = new();
    private List<Pending> spare = new();
    private bool flushing;
    private long sequenced; // the sequence number of the last record appended (under gate)

    // Sequence numbers of groups whose write failed (flush loop only). Groups take consecutive
    // numbers, so the groups of one outage (each write failing until storage is back) are one
    // range: one entry per outage, however long it lasts.
    private readonly List<(long From, long Through)> failedGroups = [];

    // Records appended for transactions (not a checkpoint's own), and their count at the last seal:
    // a checkpoint round with nothing new since the last one is skipped. One at the start, so the
    // first round runs (the storage may hold records from before a restart).
    private long activity = 1;
    private long activityAtSeal;
    private long checkpointBytes;

    // Told once a failover has fenced this log: the silo must stop (LogWriterPool).
    private readonly Action<LogFencedException>? fenced;

    public LogWriter(string log, ILogStorage storage, SnapperMetrics metrics, ILogger diagnostics, Action<LogFencedException>? fenced = null)
    {
        this.log = log;
        this.storage = storage;
        this.metrics = metrics;
        this.diagnostics = diagnostics;
        this.fenced = fenced;
    }

    public string Name => log;

    /// <summary>Appends a record; the task completes when it is durable, or faults if storage failed.</summary>
    public Task Append(LogRecord record)
    {
        Interlocked.Increment(ref activity);
        return Write(LogRecordCodec.Encode(record));
    }

    /// <summary>
    /// Appends a record, calls <paramref name="whenDone"/> with null once it is durable or with the
    /// failure if storage failed, and returns the record's sequence number in this log at once: a
    /// record appended later with <see cref="AppendAfter"/> naming it is durable only if this one is
    /// (records are written in sequence order, a group at a time). The callback runs on the flush
    /// loop, outside any grain context, and must not block: it is for a caller whose next step is a
    /// message to send, which then goes out without first hopping back into the caller's grain (a
    /// work item per actor per batch on BatchComplete's path).
    /// </summary>
    public long AppendSequenced(LogRecord record, Action<Exception?> whenDone)
    {
        Interlocked.Increment(ref activity);
        return Enqueue(new Pending(LogRecordCodec.Encode(record), seals: false, whenDone));
    }

    /// <summary>
    /// As <see cref="Append(LogRecord)"/>, for a record that may be durable only if the records
    /// sequenced <paramref name="from"/> through <paramref name="through"/> here
    /// (<see cref="AppendSequenced"/>, all appended before it) are: it fails, unwritten, if the
    /// write of any of them failed. Those lie in its own group or an earlier one, so when its group
    /// is written their fate is known, and a log read back has them before it.
    /// </summary>
    public Task AppendAfter(LogRecord record, long from, long through)
    {
        Interlocked.Increment(ref activity);
        var entry = new Pending(LogRecordCodec.Encode(record), seals: false) { DependsOn = (from, through) };
        Enqueue(entry);
        return entry.Durable;
    }

    /// <summary>
    /// Appends <paramref name="first"/>, then <paramref name="decision"/>, which may be durable only
    /// if <paramref name="first"/> and the records sequenced <paramref name="from"/> through
    /// <paramref name="through"/> (0: none) are (<see cref="AppendAfter"/>): the two may land in
    /// different groups, and a group that failed does not stop the next one from being written.
    /// </summary>
    public Task AppendBefore(LogRecord first, LogRecord decision, long from = 0, long through = 0)
    {
        var sequenced = AppendSequenced(first, static _ => { });
        return AppendAfter(decision, from == 0 ? sequenced : Math.Min(from, sequenced), Math.Max(through, sequenced));
    }

    /// <summary>
    /// As <see cref="Append(LogRecord)"/>, for a record a checkpoint writes: it does not count as
    /// activity (<see cref="QuietSinceSeal"/>), and its bytes count in <see cref="CheckpointBytes"/>.
    /// </summary>
    public Task AppendCheckpoint(LogRecord record)
    {
        var bytes = LogRecordCodec.Encode(record);
        Interlocked.Add(ref checkpointBytes, bytes.Length);
        return Write(bytes);
    }

    /// <summary>Bytes of the records checkpoints appended to this log since it was made (a round's cost, <see cref="Checkpointing.CheckpointReport.Bytes"/>).</summary>
    public long CheckpointBytes => Interlocked.Read(ref checkpointBytes);

    private Task Write(byte[] bytes)
    {
        var entry = new Pending(bytes, seals: false);
        Enqueue(entry);
        return entry.Durable;
    }

    /// <summary>
    /// Seals the log for a checkpoint (<see cref="ILogStorage.SealAsync"/>) once every record
    /// appended before this call is written, then appends <paramref name="marker"/> as the first
    /// record after the seal. Returns the storage's mark once the marker is durable: every record
    /// appended before this call lies before the mark, and is durable or failed.
    /// </summary>
    public async Task<long> Seal(LogRecord marker)
    {
        Interlocked.Exchange(ref activityAtSeal, Interlocked.Read(ref activity));
        var entry = new Pending(LogRecordCodec.Encode(marker), seals: true);
        Enqueue(entry);
        await entry.Durable.ConfigureAwait(false);
        return entry.Mark;
    }

    /// <summary>True if no record was appended for a transaction since the last <see cref="Seal"/> (a checkpoint would find nothing new here).</summary>
    public bool QuietSinceSeal => Interlocked.Read(ref activity) == Interlocked.Read(ref activityAtSeal);

    /// <summary>Completes once every record appended before this call is durable, or has failed.</summary>
    public Task Flush()
    {
        var entry = new Pending([], seals: false);
        Enqueue(entry);
        return entry.Durable;
    }

    /// <summary>Removes the records before <paramref name="mark"/> (from <see cref="Seal"/>) from the storage.</summary>
    public Task Truncate(long mark) => storage.TruncateAsync(log, mark, CancellationToken.None);

    private long Enqueue(Pending entry)
    {
        bool startFlush;
        long sequence;
        lock (gate)
        {
            sequence = entry.Sequence = ++sequenced;
            pending.Add(entry);
            startFlush = !flushing;
            flushing = true;
        }

        if (startFlush)
        {
            // The flush loop runs off the actors' turns, on the thread pool.
            _ = Task.Run(FlushLoop);
        }

        return sequence;
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

            // A seal splits the group: what came before it is written, the storage sealed, and the
            // seal's marker goes first into the next write.
            var from = 0;
            for (var i = 0; i < group.Count; i++)
            {
                if (group[i].Seals)
                {
                    await Write(group, from, i).ConfigureAwait(false);
                    await SealBefore(group[i]).ConfigureAwait(false);
                    from = i;
                }
            }

            await Write(group, from, group.Count).ConfigureAwait(false);
            group.Clear();
        }
    }

    private async Task SealBefore(Pending seal)
    {
        try
        {
            seal.Mark = await storage.SealAsync(log, CancellationToken.None).ConfigureAwait(false);
        }
        catch (Exception e)
        {
            // The marker is then not written: Write skips an entry already completed.
            seal.Fail(new IOException($"Log '{log}' could not be sealed for a checkpoint: {e.Message}", e), diagnostics, log);
        }
    }

    private async Task Write(List<Pending> group, int from, int to)
    {
        var records = new List<ReadOnlyMemory<byte>>(to - from);
        for (var i = from; i < to; i++)
        {
            if (group[i].DependsOn is { } needed && LostAny(needed))
            {
                group[i].Fail(new IOException($"Log '{log}' did not write a record that this one may follow only once durable (sequence {needed.From}-{needed.Through})"), diagnostics, log);
                continue;
            }

            if (!group[i].Done && group[i].Bytes.Length > 0)
            {
                records.Add(group[i].Bytes);
            }
        }

        if (records.Count == 0)
        {
            // Only flushes (no bytes), or seals that failed: nothing to write.
            for (var i = from; i < to; i++)
            {
                group[i].Succeed(diagnostics, log);
            }

            return;
        }

        try
        {
            await storage.AppendAsync(log, records, CancellationToken.None).ConfigureAwait(false);
            metrics.LogGroupWritten(records.Count);
            for (var i = from; i < to; i++)
            {
                group[i].Succeed(diagnostics, log);
            }
        }
        catch (LogFencedException e) when (e.MayHaveCounted)
        {
            // The group may count or not: telling anyone either would be a guess. Its entries stay
            // undone, and the silo stops.
            LogMessages.LogFenced(diagnostics, e, log);
            fenced?.Invoke(e);
        }
        catch (Exception e)
        {
            if (e is LogFencedException refused)
            {
                LogMessages.LogFenced(diagnostics, e, log);
                fenced?.Invoke(refused);
            }

            LogMessages.LogWriteFailed(diagnostics, e, log, records.Count);
            NoteFailed(group[from].Sequence, group[to - 1].Sequence);
            var failure = new IOException($"Log '{log}' could not persist a group of {records.Count} record(s): {e.Message}", e);
            for (var i = from; i < to; i++)
            {
                group[i].Fail(failure, diagnostics, log);
            }
        }
    }

    /// <summary>How many ranges of failed groups are remembered (tests: one per outage).</summary>
    internal int FailedRanges => failedGroups.Count;

    private void NoteFailed(long from, long through)
    {
        if (failedGroups.Count > 0 && failedGroups[^1].Through + 1 >= from)
        {
            failedGroups[^1] = (failedGroups[^1].From, through); // the same outage: the previous group failed too
            return;
        }

        failedGroups.Add((from, through));
    }

    private bool LostAny((long From, long Through) needed)
    {
        foreach (var (from, through) in failedGroups)
        {
            if (from <= needed.Through && needed.From <= through)
            {
                return true;
            }
        }

        return false;
    }

    // One appended record: a task to await, or a callback (AppendSequenced). Completed once.
    private sealed class Pending(byte[] bytes, bool seals, Action<Exception?>? whenDone = null)
    {
        private readonly TaskCompletionSource? durable = whenDone is null ? new(TaskCreationOptions.RunContinuationsAsynchronously) : null;

        public byte[] Bytes { get; } = bytes;

        /// <summary>A checkpoint seal: the log is sealed before this entry (its marker) is written. An entry without bytes is a flush.</summary>
        public bool Seals { get; } = seals;

        /// <summary>For a seal, the storage's mark (<see cref="ILogStorage.SealAsync"/>).</summary>
        public long Mark { get; set; }

        /// <summary>Its place in the log's append order (under the logger's gate).</summary>
        public long Sequence { get; set; }

        /// <summary>Records (by sequence) it may be durable only after (<see cref="AppendAfter"/>).</summary>
        public (long From, long Through)? DependsOn { get; init; }

        /// <summary>Durable, or failed (a seal that failed is not written).</summary>
        public bool Done { get; private set; }

        /// <summary>Completes when the record is durable (entries appended without a callback).</summary>
        public Task Durable => durable!.Task;

        public void Succeed(ILogger diagnostics, string log) => Complete(null, diagnostics, log);

        public void Fail(Exception failure, ILogger diagnostics, string log) => Complete(failure, diagnostics, log);

        private void Complete(Exception? failure, ILogger diagnostics, string log)
        {
            if (Done)
            {
                return;
            }

            Done = true;
            if (durable is not null)
            {
                _ = failure is null ? durable.TrySetResult() : durable.TrySetException(failure);
                return;
            }

            try
            {
                whenDone!(failure);
            }
            catch (Exception e)
            {
                LogMessages.LogCallbackFailed(diagnostics, e, log); // the flush loop goes on for the other records
            }
        }
    }
}

using System.Collections.Concurrent;
using System.Runtime.CompilerServices;

namespace Snapper.Logging;

/// <summary>Keeps logs in process memory: survives actor deactivation, not a process crash.</summary>
/// <remarks>
/// Records are copied into chunks of 1 MiB (large-object-heap arrays) and indexed by position, not
/// kept as one small array each: a log is a silo's biggest and longest-lived data, and millions of
/// small arrays would be copied from generation to generation by the collector, each copy part of
/// a pause for every transaction in flight (a durable log keeps its records off the heap anyway).
/// </remarks>
public sealed class InMemoryLogStorage : ILogStorage
{
    private readonly ConcurrentDictionary<string, Records> logs = new();

    /// <inheritdoc />
    /// <remarks>Refused (<see cref="LogFencedException"/>) once the log's owner was fenced, until a new owner claims it.</remarks>
    public Task AppendAsync(string log, IReadOnlyList<ReadOnlyMemory<byte>> group, CancellationToken cancellationToken)
    {
        cancellationToken.ThrowIfCancellationRequested();
        var records = logs.GetOrAdd(log, static _ => new Records());
        lock (records)
        {
            if (records.Fenced)
            {
                return Task.FromException(new LogFencedException($"Log '{log}' was fenced: its owner {records.Owner} was failed over."));
            }

            foreach (var record in group)
            {
                records.Add(record.Span);
            }
        }
        return Task.CompletedTask;
    }

    /// <inheritdoc />
    public async IAsyncEnumerable<string> ListAsync([EnumeratorCancellation] CancellationToken cancellationToken)
    {
        await Task.CompletedTask;
        foreach (var log in logs.Keys)
        {
            cancellationToken.ThrowIfCancellationRequested();
            yield return log;
        }
    }

    /// <inheritdoc />
    public async IAsyncEnumerable<ReadOnlyMemory<byte>> ReadAsync(string log, [EnumeratorCancellation] CancellationToken cancellationToken)
    {
        await Task.CompletedTask;
        if (!logs.TryGetValue(log, out var records))
        {
            yield break;
        }

        ReadOnlyMemory<byte>[] copy;
        lock (records)
        {
            copy = records.Snapshot();
        }

        foreach (var record in copy)
        {
            cancellationToken.ThrowIfCancellationRequested();
            yield return record;
        }
    }

    /// <summary>How many records <paramref name="log"/> holds now (what truncation left).</summary>
    public int CountOf(string log)
    {
        if (!logs.TryGetValue(log, out var records))
        {
            return 0;
        }

        lock (records)
        {
            return records.Count;
        }
    }

    /// <inheritdoc />
    public Task<long> SealAsync(string log, CancellationToken cancellationToken)
    {
        cancellationToken.ThrowIfCancellationRequested();
        var records = logs.GetOrAdd(log, static _ => new Records());
        lock (records)
        {
            return Task.FromResult(records.Dropped + records.Count);
        }
    }

    /// <inheritdoc />
    public Task TruncateAsync(string log, long mark, CancellationToken cancellationToken)
    {
        cancellationToken.ThrowIfCancellationRequested();
        if (logs.TryGetValue(log, out var records))
        {
            lock (records)
            {
                records.DropFront((int)Math.Clamp(mark - records.Dropped, 0, records.Count));
            }
        }

        return Task.CompletedTask;
    }

    /// <inheritdoc />
    /// <remarks>
    /// One process holds the storage, so a claim always succeeds: a silo restarted under its name
    /// (in process) takes its log over from its dead self, whose appends then fail. An append does
    /// not say who makes it, so the fence is on the log until the next claim.
    /// </remarks>
    public Task ClaimAsync(string log, string owner, CancellationToken cancellationToken)
    {
        cancellationToken.ThrowIfCancellationRequested();
        var records = logs.GetOrAdd(log, static _ => new Records());
        lock (records)
        {
            (records.Owner, records.Fenced) = (owner, false);
        }

        return Task.CompletedTask;
    }

    /// <inheritdoc />
    public Task FenceAsync(string log, string owner, CancellationToken cancellationToken)
    {
        cancellationToken.ThrowIfCancellationRequested();
        if (logs.TryGetValue(log, out var records))
        {
            lock (records)
            {
                records.Fenced |= records.Owner == owner;
            }
        }

        return Task.CompletedTask;
    }

    private const int ChunkBytes = 1 << 20;

    // A log's records, in chunks, and how many were truncated from its front (so a mark is a
    // position in the whole log, whatever was dropped since). Callers hold the lock.
    private sealed class Records
    {
        // Chunk numbers count from the log's first; chunks[0] is chunk firstChunk. A record larger
        // than a chunk gets an array of its own.
        private readonly List<byte[]> chunks = [];
        private readonly List<(int Chunk, int Offset, int Length)> index = []; // no references: the collector does not scan it
        private int firstChunk;
        private int used = ChunkBytes; // bytes used in the last chunk (full: there is none yet)

        public long Dropped { get; private set; }

        /// <summary>The silo incarnation that claimed the log last (null: none did).</summary>
        public string? Owner { get; set; }

        /// <summary>True once <see cref="Owner"/> was fenced: appends fail until a new claim.</summary>
        public bool Fenced { get; set; }

        public int Count => index.Count;

        public void Add(ReadOnlySpan<byte> record)
        {
            if (record.Length > ChunkBytes - used)
            {
                chunks.Add(GC.AllocateUninitializedArray<byte>(Math.Max(ChunkBytes, record.Length)));
                used = 0;
            }

            record.CopyTo(chunks[^1].AsSpan(used));
            index.Add((firstChunk + chunks.Count - 1, used, record.Length));
            used += record.Length;
        }

        // Slices of the chunks: their bytes never change once written.
        public ReadOnlyMemory<byte>[] Snapshot()
        {
            var records = new ReadOnlyMemory<byte>[index.Count];
            for (var i = 0; i < records.Length; i++)
            {
                var (chunk, offset, length) = index[i];
                records[i] = chunks[chunk - firstChunk].AsMemory(offset, length);
            }

            return records;
        }

        public void DropFront(int count)
        {
            index.RemoveRange(0, count);
            Dropped += count;

            // The chunks before the first kept record's go; the last one stays for appends.
            var keepFrom = index.Count > 0 ? index[0].Chunk : firstChunk + chunks.Count - 1;
            var drop = Math.Max(0, keepFrom - firstChunk);
            chunks.RemoveRange(0, drop);
            firstChunk += drop;
        }
    }
}

using System.Collections.Concurrent;
using System.Runtime.CompilerServices;

namespace Snapper.Logging;

/// <summary>Keeps logs in process memory: survives actor deactivation, not a process crash.</summary>
public sealed class InMemoryLogStorage : ILogStorage
{
    private readonly ConcurrentDictionary<string, Records> logs = new();

    /// <summary>How many groups have been appended, over all logs.</summary>
    public long GroupCount => Interlocked.Read(ref groupCount);

    private long groupCount;

    /// <inheritdoc />
    public Task AppendAsync(string log, IReadOnlyList<ReadOnlyMemory<byte>> group, CancellationToken cancellationToken)
    {
        cancellationToken.ThrowIfCancellationRequested();
        var records = logs.GetOrAdd(log, static _ => new Records());
        lock (records)
        {
            foreach (var record in group)
            {
                records.Kept.Add(record.ToArray());
            }
        }

        Interlocked.Increment(ref groupCount);
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

        byte[][] copy;
        lock (records)
        {
            copy = [.. records.Kept];
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
            return records.Kept.Count;
        }
    }

    /// <inheritdoc />
    public Task<long> SealAsync(string log, CancellationToken cancellationToken)
    {
        cancellationToken.ThrowIfCancellationRequested();
        var records = logs.GetOrAdd(log, static _ => new Records());
        lock (records)
        {
            return Task.FromResult(records.Dropped + records.Kept.Count);
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
                var drop = (int)Math.Clamp(mark - records.Dropped, 0, records.Kept.Count);
                records.Kept.RemoveRange(0, drop);
                records.Dropped += drop;
            }
        }

        return Task.CompletedTask;
    }

    // A log's records, and how many were truncated from its front (so a mark is a position in
    // the whole log, whatever was dropped since).
    private sealed class Records
    {
        public List<byte[]> Kept { get; } = [];

        public long Dropped { get; set; }
    }
}

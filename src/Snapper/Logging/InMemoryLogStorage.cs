using System.Collections.Concurrent;
using System.Runtime.CompilerServices;

namespace Snapper.Logging;

/// <summary>Keeps logs in process memory: survives actor deactivation, not a process crash.</summary>
public sealed class InMemoryLogStorage : ILogStorage
{
    private readonly ConcurrentDictionary<string, List<byte[]>> logs = new();

    /// <summary>How many groups have been appended, over all logs.</summary>
    public long GroupCount => Interlocked.Read(ref groupCount);

    private long groupCount;

    /// <inheritdoc />
    public Task AppendAsync(string log, IReadOnlyList<ReadOnlyMemory<byte>> group, CancellationToken cancellationToken)
    {
        cancellationToken.ThrowIfCancellationRequested();
        var records = logs.GetOrAdd(log, static _ => new List<byte[]>());
        lock (records)
        {
            foreach (var record in group)
            {
                records.Add(record.ToArray());
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
            copy = [.. records];
        }

        foreach (var record in copy)
        {
            cancellationToken.ThrowIfCancellationRequested();
            yield return record;
        }
    }
}

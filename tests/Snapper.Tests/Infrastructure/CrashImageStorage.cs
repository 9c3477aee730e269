using Snapper.Logging;

namespace Snapper.Tests.Infrastructure;

/// <summary>
/// Log storage whose whole state can be copied at an instant, as a crash would leave it: every
/// group whose append returned is in the image, nothing after it is. Appends take a global lock
/// so an image never holds half of one.
/// </summary>
public sealed class CrashImageStorage : ILogStorage
{
    private readonly object gate = new();
    private readonly Dictionary<string, List<byte[]>> logs = new();
    private readonly Dictionary<string, long> truncated = new();

    public Task AppendAsync(string log, IReadOnlyList<ReadOnlyMemory<byte>> group, CancellationToken cancellationToken)
    {
        lock (gate)
        {
            if (!logs.TryGetValue(log, out var records))
            {
                logs[log] = records = [];
            }

            records.AddRange(group.Select(r => r.ToArray()));
        }

        return Task.CompletedTask;
    }

    public async IAsyncEnumerable<ReadOnlyMemory<byte>> ReadAsync(string log, [System.Runtime.CompilerServices.EnumeratorCancellation] CancellationToken cancellationToken)
    {
        await Task.CompletedTask;
        byte[][] copy;
        lock (gate)
        {
            copy = logs.TryGetValue(log, out var records) ? [.. records] : [];
        }

        foreach (var record in copy)
        {
            yield return record;
        }
    }

    public async IAsyncEnumerable<string> ListAsync([System.Runtime.CompilerServices.EnumeratorCancellation] CancellationToken cancellationToken)
    {
        await Task.CompletedTask;
        string[] names;
        lock (gate)
        {
            names = [.. logs.Keys];
        }

        foreach (var name in names)
        {
            yield return name;
        }
    }

    public Task<long> SealAsync(string log, CancellationToken cancellationToken)
    {
        lock (gate)
        {
            return Task.FromResult(truncated.GetValueOrDefault(log) + (logs.TryGetValue(log, out var records) ? records.Count : 0));
        }
    }

    public Task TruncateAsync(string log, long mark, CancellationToken cancellationToken)
    {
        lock (gate)
        {
            if (logs.TryGetValue(log, out var records))
            {
                var drop = (int)Math.Clamp(mark - truncated.GetValueOrDefault(log), 0, records.Count);
                records.RemoveRange(0, drop);
                truncated[log] = truncated.GetValueOrDefault(log) + drop;
            }
        }

        return Task.CompletedTask;
    }

    // The crash tests run one silo at a time: nobody fails it over, so nothing is fenced.
    public Task ClaimAsync(string log, string owner, CancellationToken cancellationToken) => Task.CompletedTask;

    public Task FenceAsync(string log, string owner, CancellationToken cancellationToken) =>
        throw new NotSupportedException("CrashImageStorage is for one silo at a time; a failover needs a storage that fences.");

    /// <summary>The logs as they are now, in a storage of their own for a silo started after the "crash".</summary>
    public async Task<InMemoryLogStorage> ImageAsync()
    {
        Dictionary<string, byte[][]> copy;
        lock (gate)
        {
            copy = logs.ToDictionary(kv => kv.Key, kv => kv.Value.ToArray());
        }

        var image = new InMemoryLogStorage();
        foreach (var (log, records) in copy)
        {
            await image.AppendAsync(log, [.. records.Select(r => (ReadOnlyMemory<byte>)r)], CancellationToken.None);
        }

        return image;
    }
}

using Snapper.Logging;

namespace Snapper.Tests.Infrastructure;

/// <summary>
/// In-memory log storage that holds back a chosen group until the test writes or fails it, so a
/// test can stop a protocol exactly between "appended" and "durable" (hold, act, release) instead
/// of sleeping its way to a race. Everything not held is written at once.
/// </summary>
internal sealed class ScriptedLogStorage : ILogStorage
{
    private readonly InMemoryLogStorage inner = new();
    private readonly object gate = new();
    private readonly List<HeldGroup> armed = [];

    /// <summary>Holds the first group to arrive that contains a record matching <paramref name="match"/>.</summary>
    public HeldGroup Hold(Func<LogRecord, bool> match)
    {
        var held = new HeldGroup(match);
        lock (gate)
        {
            armed.Add(held);
        }

        return held;
    }

    public async Task AppendAsync(string log, IReadOnlyList<ReadOnlyMemory<byte>> group, CancellationToken cancellationToken)
    {
        var records = group.Select(r => LogRecordCodec.Decode(r.Span)).ToArray();
        HeldGroup? held;
        lock (gate)
        {
            held = armed.FirstOrDefault(h => records.Any(h.Match));
            if (held is not null)
            {
                armed.Remove(held);
            }
        }

        if (held is not null && !await held.Arrive(log))
        {
            throw new IOException($"storage unavailable (the test failed the held group on {log})");
        }

        await inner.AppendAsync(log, group, cancellationToken);
    }

    public IAsyncEnumerable<ReadOnlyMemory<byte>> ReadAsync(string log, CancellationToken cancellationToken) => inner.ReadAsync(log, cancellationToken);

    public IAsyncEnumerable<string> ListAsync(CancellationToken cancellationToken) => inner.ListAsync(cancellationToken);

    public Task<long> SealAsync(string log, CancellationToken cancellationToken) => inner.SealAsync(log, cancellationToken);

    public Task TruncateAsync(string log, long mark, CancellationToken cancellationToken) => inner.TruncateAsync(log, mark, cancellationToken);

    public Task ClaimAsync(string log, string owner, CancellationToken cancellationToken) => inner.ClaimAsync(log, owner, cancellationToken);

    public Task FenceAsync(string log, string owner, CancellationToken cancellationToken) => inner.FenceAsync(log, owner, cancellationToken);

    /// <summary>Every durable record of <paramref name="log"/>, decoded.</summary>
    public async Task<List<LogRecord>> Records(string log)
    {
        var records = new List<LogRecord>();
        await foreach (var bytes in inner.ReadAsync(log, CancellationToken.None))
        {
            records.Add(LogRecordCodec.Decode(bytes.Span));
        }

        return records;
    }

    /// <summary>The durable logs as they are now, for a silo started after a "crash".</summary>
    public async Task<InMemoryLogStorage> ImageAsync()
    {
        var image = new InMemoryLogStorage();
        await foreach (var log in inner.ListAsync(CancellationToken.None))
        {
            var bytes = new List<ReadOnlyMemory<byte>>();
            await foreach (var record in inner.ReadAsync(log, CancellationToken.None))
            {
                bytes.Add(record.ToArray());
            }

            if (bytes.Count > 0)
            {
                await image.AppendAsync(log, bytes, CancellationToken.None);
            }
        }

        return image;
    }
}

/// <summary>A group <see cref="ScriptedLogStorage"/> holds: the test sees it arrive, then writes or fails it.</summary>
internal sealed class HeldGroup(Func<LogRecord, bool> match)
{
    private static readonly TimeSpan Patience = TimeSpan.FromSeconds(20);
    private readonly TaskCompletionSource<string> arrived = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private readonly TaskCompletionSource<bool> verdict = new(TaskCreationOptions.RunContinuationsAsynchronously);

    internal Func<LogRecord, bool> Match { get; } = match;

    /// <summary>Completes with the log's name once the group has reached storage; fails instead of hanging.</summary>
    public Task<string> Arrived => arrived.Task.WaitAsync(Patience);

    /// <summary>Writes the group: its append then completes.</summary>
    public void Release() => verdict.TrySetResult(true);

    /// <summary>Fails the group: nothing of it is written and its append throws.</summary>
    public void Fail() => verdict.TrySetResult(false);

    internal Task<bool> Arrive(string log)
    {
        arrived.TrySetResult(log);
        return verdict.Task;
    }
}

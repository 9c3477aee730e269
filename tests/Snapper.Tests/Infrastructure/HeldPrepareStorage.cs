using Snapper.Logging;

namespace Snapper.Tests.Infrastructure;

/// <summary>
/// In-memory log storage that holds back the first group containing a Prepare record until the
/// test fails it: that ACT's prepare never becomes durable, so it aborts after having released
/// its locks early. Everything else is written at once.
/// </summary>
public sealed class HeldPrepareStorage : ILogStorage
{
    private readonly InMemoryLogStorage inner = new();
    private readonly TaskCompletionSource release = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private int held;

    public async Task AppendAsync(string log, IReadOnlyList<ReadOnlyMemory<byte>> group, CancellationToken cancellationToken)
    {
        if (group.Any(r => LogRecordCodec.Decode(r.Span) is PrepareRecord) && Interlocked.Exchange(ref held, 1) == 0)
        {
            await release.Task;
            throw new IOException("storage unavailable (held Prepare failed by the test)");
        }

        await inner.AppendAsync(log, group, cancellationToken);
    }

    public IAsyncEnumerable<ReadOnlyMemory<byte>> ReadAsync(string log, CancellationToken cancellationToken) => inner.ReadAsync(log, cancellationToken);

    public void FailHeld() => release.TrySetResult();
}

namespace Snapper.Logging;

/// <summary>
/// Adds a fixed delay to every write of another storage, to stand in for cloud storage latency
/// (<see cref="Configuration.SnapperOptions.LogWriteDelay"/>): the gap between local fsync and a cloud
/// table write is what early lock release is about (Thorp §I). Reads are not delayed.
/// </summary>
internal sealed class DelayedLogStorage(ILogStorage inner, TimeSpan delay, TimeProvider clock) : ILogStorage
{
    public async Task AppendAsync(string log, IReadOnlyList<ReadOnlyMemory<byte>> group, CancellationToken cancellationToken)
    {
        await Task.Delay(delay, clock, cancellationToken).ConfigureAwait(false);
        await inner.AppendAsync(log, group, cancellationToken).ConfigureAwait(false);
    }

    public Task ClaimAsync(string log, CancellationToken cancellationToken) => inner.ClaimAsync(log, cancellationToken);

    public IAsyncEnumerable<ReadOnlyMemory<byte>> ReadAsync(string log, CancellationToken cancellationToken) => inner.ReadAsync(log, cancellationToken);

    public IAsyncEnumerable<string> ListAsync(CancellationToken cancellationToken) => inner.ListAsync(cancellationToken);

    public Task<long> SealAsync(string log, CancellationToken cancellationToken) => inner.SealAsync(log, cancellationToken);

    public Task TruncateAsync(string log, long mark, CancellationToken cancellationToken) => inner.TruncateAsync(log, mark, cancellationToken);
}

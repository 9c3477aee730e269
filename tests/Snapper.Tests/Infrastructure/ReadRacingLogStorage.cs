using System.Runtime.CompilerServices;
using Snapper.Logging;

namespace Snapper.Tests.Infrastructure;

/// <summary>
/// In-memory log storage whose logs are listed in a fixed order and that runs a test's appends
/// once a log's first read has ended: how a scan of live logs, one after another, meets the
/// transactions that go on meanwhile, without sleeping its way to the race.
/// </summary>
internal sealed class ReadRacingLogStorage(params string[] order) : ILogStorage
{
    private readonly InMemoryLogStorage inner = new();
    private readonly Dictionary<string, Func<Task>> afterRead = new(StringComparer.Ordinal);

    /// <summary>Runs <paramref name="appends"/> once, as soon as a read of <paramref name="log"/> has seen its last record.</summary>
    public void AfterFirstRead(string log, Func<Task> appends) => afterRead[log] = appends;

    /// <summary>Appends <paramref name="records"/> to <paramref name="log"/>, one group.</summary>
    public Task Append(string log, params LogRecord[] records) =>
        inner.AppendAsync(log, [.. records.Select(r => (ReadOnlyMemory<byte>)LogRecordCodec.Encode(r))], CancellationToken.None);

    public Task AppendAsync(string log, IReadOnlyList<ReadOnlyMemory<byte>> group, CancellationToken cancellationToken) => inner.AppendAsync(log, group, cancellationToken);

    public async IAsyncEnumerable<ReadOnlyMemory<byte>> ReadAsync(string log, [EnumeratorCancellation] CancellationToken cancellationToken)
    {
        await foreach (var record in inner.ReadAsync(log, cancellationToken))
        {
            yield return record;
        }

        if (afterRead.Remove(log, out var appends))
        {
            await appends();
        }
    }

    public async IAsyncEnumerable<string> ListAsync([EnumeratorCancellation] CancellationToken cancellationToken)
    {
        await Task.CompletedTask;
        foreach (var log in order)
        {
            cancellationToken.ThrowIfCancellationRequested();
            yield return log;
        }
    }

    public Task<long> SealAsync(string log, CancellationToken cancellationToken) => inner.SealAsync(log, cancellationToken);

    public Task TruncateAsync(string log, long mark, CancellationToken cancellationToken) => inner.TruncateAsync(log, mark, cancellationToken);

    public Task ClaimAsync(string log, string owner, CancellationToken cancellationToken) => inner.ClaimAsync(log, owner, cancellationToken);

    public Task FenceAsync(string log, string owner, CancellationToken cancellationToken) => inner.FenceAsync(log, owner, cancellationToken);
}

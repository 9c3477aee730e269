namespace Snapper.Logging;

/// <summary>
/// Where loggers persist their records. A log is a named append-only stream; each
/// <see cref="AppendAsync"/> call is one group commit and must be durable when its task completes.
/// Implementations: <see cref="InMemoryLogStorage"/> (tests, benchmarks) and
/// <see cref="FileStorage.FileLogStorage"/> (segment files, CRC32C frames, one fsync per group).
/// Records are never empty (every encoded record has a header).
/// </summary>
public interface ILogStorage
{
    /// <summary>Appends <paramref name="group"/> to <paramref name="log"/> as one durable unit.</summary>
    Task AppendAsync(string log, IReadOnlyList<ReadOnlyMemory<byte>> group, CancellationToken cancellationToken);

    /// <summary>Reads every record of <paramref name="log"/> in append order.</summary>
    IAsyncEnumerable<ReadOnlyMemory<byte>> ReadAsync(string log, CancellationToken cancellationToken);

    /// <summary>The names of every log with records (recovery reads them all: every silo's).</summary>
    IAsyncEnumerable<string> ListAsync(CancellationToken cancellationToken);
}

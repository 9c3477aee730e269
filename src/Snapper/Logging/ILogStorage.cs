namespace Snapper.Logging;

/// <summary>
/// Where loggers persist their records. A log is a named append-only stream; each
/// <see cref="AppendAsync"/> call is one group commit and must be durable when its task completes.
/// Implementations: <see cref="InMemoryLogStorage"/> (tests, benchmarks); durable ones come later.
/// </summary>
public interface ILogStorage
{
    /// <summary>Appends <paramref name="group"/> to <paramref name="log"/> as one durable unit.</summary>
    Task AppendAsync(string log, IReadOnlyList<ReadOnlyMemory<byte>> group, CancellationToken cancellationToken);

    /// <summary>Reads every record of <paramref name="log"/> in append order.</summary>
    IAsyncEnumerable<ReadOnlyMemory<byte>> ReadAsync(string log, CancellationToken cancellationToken);
}

namespace Snapper.Logging;

/// <summary>
/// Where loggers persist their records. A log is a named append-only stream; each
/// <see cref="AppendAsync"/> call is one group commit and must be durable when its task completes.
/// Implementations: <see cref="InMemoryLogStorage"/> (tests, benchmarks) and
/// <see cref="FileStorage.FileLogStorage"/> (segment files, CRC32C frames, one fsync per group).
/// Records are never empty (every encoded record has a header). Checkpoints bound a log: its
/// writer seals it (<see cref="SealAsync"/>) and later truncates what came before the seal.
/// </summary>
public interface ILogStorage
{
    /// <summary>Appends <paramref name="group"/> to <paramref name="log"/> as one durable unit.</summary>
    Task AppendAsync(string log, IReadOnlyList<ReadOnlyMemory<byte>> group, CancellationToken cancellationToken);

    /// <summary>Reads every record of <paramref name="log"/> in append order.</summary>
    IAsyncEnumerable<ReadOnlyMemory<byte>> ReadAsync(string log, CancellationToken cancellationToken);

    /// <summary>The names of every log with records (recovery reads them all: every silo's).</summary>
    IAsyncEnumerable<string> ListAsync(CancellationToken cancellationToken);

    /// <summary>
    /// Ends the current stretch of <paramref name="log"/>: every record appended before this call
    /// lies before the returned mark, every record appended after it at or after the mark. Called by
    /// the log's own writer, between appends (a checkpoint, see docs/architecture.md).
    /// </summary>
    Task<long> SealAsync(string log, CancellationToken cancellationToken);

    /// <summary>
    /// Removes records of <paramref name="log"/> before <paramref name="mark"/> (from
    /// <see cref="SealAsync"/>), those a checkpoint made unnecessary. It may keep some of them (a
    /// file storage keeps its last segment), and if it stops part way it leaves a log that still
    /// reads: never a hole in the middle.
    /// </summary>
    Task TruncateAsync(string log, long mark, CancellationToken cancellationToken);

    /// <summary>
    /// Makes silo incarnation <paramref name="owner"/> the writer of <paramref name="log"/>: a silo
    /// calls it for each log it writes as it starts, before recovery reads the logs. A storage that
    /// can tell a second writer refuses here (the file storage: <see cref="FileStorage.LogHeldException"/>),
    /// and readies the log: what a crash left is repaired (a torn tail cut) or refused, and what an
    /// earlier owner appended after it was fenced is gone from the log from here on.
    /// </summary>
    Task ClaimAsync(string log, string owner, CancellationToken cancellationToken);

    /// <summary>
    /// A failover fences silo incarnation <paramref name="owner"/> out of <paramref name="log"/>
    /// (docs/architecture.md, "A silo dies"): once this returns, whatever that owner appends to it
    /// will never count, and its append fails with <see cref="LogFencedException"/>; what it had
    /// appended before counts and reads back. Call it before reading the log for the failover.
    /// Nothing happens if another owner has claimed the log since, and fencing twice is fencing once.
    /// </summary>
    Task FenceAsync(string log, string owner, CancellationToken cancellationToken);
}

using System.Buffers;
using System.Collections.Concurrent;
using System.Runtime.CompilerServices;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Logging.Abstractions;

namespace Snapper.Logging.FileStorage;

/// <summary>
/// A durable <see cref="ILogStorage"/>: a write-ahead log per log name, in segment files
/// <c>{Directory}/{log}/{sequence:D10}.wal</c> of checksummed frames. Each append is one write and
/// one fsync, made on a thread of the log's own (never a thread-pool worker); appends to one log are
/// serialized, different logs proceed in parallel. The last segment is kept filled with zeros a
/// little ahead of its records (<see cref="FileLogStorageOptions.PreallocationBytes"/>), so that an
/// append's fsync does not also have to record a new file size.
/// </summary>
/// <remarks>
/// When a log is first used, a torn tail of its last segment (a crash mid-append) is cut off.
/// Damage a crash cannot explain (<see cref="SegmentDamage"/>: a bad frame with a later group after
/// it, a segment of garbage, a bad frame in a segment before the last) is never cut: opening or
/// reading the log fails with <see cref="InvalidDataException"/> naming the segment and offset, and
/// the operator restores the log or salvages it (<see cref="SalvageAsync"/>).
/// A log whose write or fsync fails is stopped (fail-stop): the failed group is cut off, or marked
/// for the next recovery to cut, and every later append to that log fails until a restart.
/// A log takes one writer: the first use of a log for writing (<see cref="ClaimAsync"/>, an append,
/// a seal) takes its lock (<see cref="LogLock"/>), held until this storage is disposed, and fails
/// with <see cref="LogHeldException"/> while another process or storage holds it. Reading a log
/// this storage does not write takes no lock, so silos may share a directory.
/// </remarks>
public sealed class FileLogStorage : ILogStorage, IAsyncDisposable
{
    private readonly string root;
    private readonly long segmentSizeBytes;
    private readonly long preallocationBytes;
    private readonly ILogger diagnostics;
    private readonly WalDisk disk;
    private readonly ConcurrentDictionary<string, SegmentLog> logs = new(StringComparer.Ordinal);
    private volatile bool disposed;

    /// <summary>
    /// The key in <see cref="Exception.Data"/> of the <see cref="InvalidDataException"/> a log fails
    /// with for damage a crash cannot explain: the damaged segment's path. A host can tell such a
    /// failure by it and point the operator to <see cref="SalvageAsync"/>.
    /// </summary>
    public const string DamagedSegmentKey = "Snapper.Logging.FileStorage.DamagedSegment";

    /// <summary>The folder of the logs (full path).</summary>
    internal string Root => root;

    /// <summary>A file log storage in <see cref="FileLogStorageOptions.Directory"/>, created if missing.</summary>
    /// <param name="options">Where and how large segment files are.</param>
    /// <param name="logger">Where repairs of torn tails and fail-stops are reported.</param>
    public FileLogStorage(FileLogStorageOptions options, ILogger<FileLogStorage>? logger = null)
        : this(options, logger, WalDisk.Real)
    {
    }

    /// <summary>With <paramref name="disk"/> making the write, fsync and truncate calls (tests fail them).</summary>
    internal FileLogStorage(FileLogStorageOptions options, ILogger<FileLogStorage>? logger, WalDisk disk)
    {
        this.disk = disk;
        ArgumentNullException.ThrowIfNull(options);
        if (string.IsNullOrWhiteSpace(options.Directory))
        {
            throw new ArgumentException($"{nameof(FileLogStorageOptions)}.{nameof(FileLogStorageOptions.Directory)} must name a folder.", nameof(options));
        }

        if (options.SegmentSizeBytes < FileLogStorageOptions.MinSegmentSizeBytes)
        {
            throw new ArgumentException(
                $"{nameof(FileLogStorageOptions)}.{nameof(FileLogStorageOptions.SegmentSizeBytes)} is {options.SegmentSizeBytes}; it must be at least {FileLogStorageOptions.MinSegmentSizeBytes}.",
                nameof(options));
        }

        if (options.PreallocationBytes < 0)
        {
            throw new ArgumentException(
                $"{nameof(FileLogStorageOptions)}.{nameof(FileLogStorageOptions.PreallocationBytes)} is {options.PreallocationBytes}; it must be 0 (off) or more.",
                nameof(options));
        }

        // Copied: later changes to the options object must not move a running storage.
        root = Path.GetFullPath(options.Directory);
        segmentSizeBytes = options.SegmentSizeBytes;
        preallocationBytes = options.PreallocationBytes;
        diagnostics = (ILogger?)logger ?? NullLogger.Instance;
    }

    /// <inheritdoc />
    /// <remarks>Records must be non-empty. The task completes once the whole group is fsynced.</remarks>
    public async Task AppendAsync(string log, IReadOnlyList<ReadOnlyMemory<byte>> group, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(group);
        var segments = LogFor(log);
        var size = WalFrame.MeasureGroup(group);
        if (size == 0)
        {
            return;
        }

        // Framed (checksums included) before taking the log's turn, so this overlaps the previous fsync.
        var buffer = ArrayPool<byte>.Shared.Rent(size);
        try
        {
            WalFrame.WriteGroup(group, buffer);
            await segments.AppendAsync(buffer.AsMemory(0, size), cancellationToken).ConfigureAwait(false);
        }
        finally
        {
            ArrayPool<byte>.Shared.Return(buffer);
        }
    }

    /// <inheritdoc />
    /// <remarks>
    /// Covers what was durable when enumeration began. Throws <see cref="InvalidDataException"/> for a
    /// missing or corrupt segment; a log never written reads as empty. A log this storage has not
    /// taken for appending (or could not, another writer holding it) is read without being
    /// changed, its last segment up to a torn tail, since another silo sharing the folder may be
    /// writing it (recovery reads every silo's logs); its own writer cuts a torn tail when it opens it.
    /// </remarks>
    public IAsyncEnumerable<ReadOnlyMemory<byte>> ReadAsync(string log, CancellationToken cancellationToken)
    {
        ObjectDisposedException.ThrowIf(disposed, this);
        return logs.TryGetValue(log, out var segments) && segments.Claimed
            ? Read(segments, cancellationToken)
            : SegmentReader.ReadWithoutRepairAsync(log, DirectoryOf(log), segmentSizeBytes, cancellationToken);
    }

    /// <inheritdoc />
    /// <remarks>Every folder under the directory that holds a segment file.</remarks>
    public async IAsyncEnumerable<string> ListAsync([EnumeratorCancellation] CancellationToken cancellationToken)
    {
        await Task.CompletedTask;
        if (!System.IO.Directory.Exists(root))
        {
            yield break;
        }

        foreach (var folder in System.IO.Directory.EnumerateDirectories(root))
        {
            cancellationToken.ThrowIfCancellationRequested();
            if (SegmentFileName.List(folder).Length > 0)
            {
                yield return Path.GetFileName(folder);
            }
        }
    }

    /// <summary>
    /// Deletes the segments of <paramref name="log"/> numbered below <paramref name="sequence"/>, for
    /// checkpointing. The current (last) segment is never deleted. Returns how many were deleted.
    /// </summary>
    internal int DeleteSegmentsBefore(string log, long sequence) => LogFor(log).DeleteBefore(sequence);

    /// <inheritdoc />
    /// <remarks>The mark is a segment number: the next append starts a new segment with it.</remarks>
    public Task<long> SealAsync(string log, CancellationToken cancellationToken)
    {
        ObjectDisposedException.ThrowIf(disposed, this);
        return LogFor(log).SealAsync(cancellationToken);
    }

    /// <inheritdoc />
    /// <remarks>Deletes whole segments below the mark, oldest first, and always keeps the last segment.</remarks>
    public Task TruncateAsync(string log, long mark, CancellationToken cancellationToken)
    {
        ObjectDisposedException.ThrowIf(disposed, this);
        cancellationToken.ThrowIfCancellationRequested();
        DeleteSegmentsBefore(log, mark);
        return Task.CompletedTask;
    }

    /// <inheritdoc />
    /// <remarks>
    /// Takes the log's lock (<see cref="LogHeldException"/> if another writer has it), cuts what a
    /// fenced earlier owner appended past its fence and records the owner (<see cref="LogFence"/>),
    /// and cuts a torn tail, or fails with <see cref="InvalidDataException"/> for damage a crash
    /// cannot explain.
    /// </remarks>
    public Task ClaimAsync(string log, string owner, CancellationToken cancellationToken)
    {
        ObjectDisposedException.ThrowIf(disposed, this);
        return LogFor(log).ClaimAsync(owner, cancellationToken);
    }

    /// <inheritdoc />
    /// <remarks>
    /// Writes the fence without an end, finds where the log's intact frames end, and writes that as
    /// the end (<see cref="LogFence"/> says why in two steps, and what a shared folder must promise).
    /// </remarks>
    public async Task FenceAsync(string log, string owner, CancellationToken cancellationToken)
    {
        ObjectDisposedException.ThrowIf(disposed, this);
        var directory = DirectoryOf(log);
        if (!System.IO.Directory.Exists(directory))
        {
            return;
        }

        using (await LogFence.LockAsync(log, directory, cancellationToken).ConfigureAwait(false))
        {
            if (LogFence.ReadOwner(directory) != owner || LogFence.Read(directory) is { Through: not null } done && done.Owner == owner)
            {
                return; // claimed by a later owner since (the fenced one is dead), or fenced already
            }

            LogFence.Write(directory, new LogFence.Fence(owner, null));
            var end = await SegmentReader.FindEndAsync(log, directory, segmentSizeBytes, cancellationToken).ConfigureAwait(false);
            LogFence.Write(directory, new LogFence.Fence(owner, end));
        }
    }

    /// <summary>
    /// Salvages <paramref name="log"/> after it was refused as corrupt: keeps its frames before the
    /// first damage a crash cannot explain, moves the rest aside into files ending in
    /// <c>.corrupt</c> (never deleted: the damaged segment is copied whole before it is cut back),
    /// and reports what the log lost. A log without such damage is left as it is, a torn tail
    /// included (its next open cuts that). For a log no process writes: it takes the log's lock
    /// (<see cref="LogHeldException"/> if a silo holds it), and this storage must not have opened it.
    /// </summary>
    public async Task<LogSalvageReport> SalvageAsync(string log, CancellationToken cancellationToken)
    {
        ObjectDisposedException.ThrowIf(disposed, this);
        var directory = DirectoryOf(log);
        if (logs.ContainsKey(log))
        {
            throw new InvalidOperationException($"Log '{log}' is open in this storage; salvage it from a storage that has not opened it.");
        }

        if (!System.IO.Directory.Exists(directory))
        {
            return new LogSalvageReport(log, null, 0, null, 0, 0, 0, []);
        }

        using var held = LogLock.Take(log, directory);
        return await LogSalvage.RunAsync(log, directory, segmentSizeBytes, cancellationToken).ConfigureAwait(false);
    }

    /// <summary>The segment files of <paramref name="log"/> on disk, oldest first.</summary>
    internal IReadOnlyList<string> SegmentFiles(string log)
    {
        var directory = DirectoryOf(log);
        return SegmentFileName.List(directory).Select(s => SegmentFileName.PathOf(directory, s)).ToArray();
    }

    /// <summary>Waits for appends in flight, then closes every file.</summary>
    public async ValueTask DisposeAsync()
    {
        disposed = true;
        foreach (var segments in logs.Values)
        {
            await segments.DisposeAsync().ConfigureAwait(false);
        }
    }

    private static async IAsyncEnumerable<ReadOnlyMemory<byte>> Read(SegmentLog segments, [EnumeratorCancellation] CancellationToken cancellationToken)
    {
        var snapshot = await segments.SnapshotAsync(cancellationToken).ConfigureAwait(false);
        await foreach (var record in SegmentReader.ReadAsync(snapshot, cancellationToken).ConfigureAwait(false))
        {
            yield return record;
        }
    }

    private SegmentLog LogFor(string log)
    {
        ObjectDisposedException.ThrowIf(disposed, this);
        var directory = DirectoryOf(log);
        return logs.GetOrAdd(log, static (name, state) => new SegmentLog(name, state.directory, state.self.segmentSizeBytes, state.self.preallocationBytes, state.self.diagnostics, state.self.disk), (self: this, directory));
    }

    // The log name becomes a folder name, so it must not be able to point anywhere else.
    private string DirectoryOf(string log)
    {
        ArgumentException.ThrowIfNullOrWhiteSpace(log);
        if (log is "." or ".." || log.AsSpan().IndexOfAny(['/', '\\', '\0']) >= 0 || log.AsSpan().IndexOfAny(Path.GetInvalidFileNameChars()) >= 0)
        {
            throw new ArgumentException($"Log name '{log}' cannot be used as a folder name.", nameof(log));
        }

        return Path.Combine(root, log);
    }
}

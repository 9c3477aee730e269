using Microsoft.Extensions.Logging;
using Snapper.Diagnostics;

namespace Snapper.Logging.FileStorage;

/// <summary>
/// One log's folder of segments: its write handle, where its durable tail ends, and the gate that
/// serializes its appends. The in-memory state is built from disk on first use.
/// </summary>
/// <remarks>
/// Fail-stop (<see cref="SegmentLogPhase.Stopped"/>): once a group's write or fsync fails, the
/// file's contents past the acknowledged tail are unknown (after a failed fsync even the page cache
/// cannot be trusted, which is why PostgreSQL stops on one), while the callers were told the group
/// failed and aborted its transactions. So the group is cut off the segment, or, if that fails too,
/// a <see cref="CutMarker"/> tells the next recovery to cut it; and the log takes no more appends
/// until a restart recovers it from disk. A failure before any byte was written (a folder or
/// segment that cannot be created) stops nothing: the next append scans the disk again.
/// One writer: the first use takes the log's <see cref="LogLock"/>, before anything on disk is
/// read or cut, and holds it until disposed.
/// </remarks>
internal sealed class SegmentLog : IAsyncDisposable
{
    private readonly string name;
    private readonly string directory;
    private readonly long segmentSizeBytes;
    private readonly long preallocationBytes;
    private readonly ILogger diagnostics;
    private readonly WalDisk disk;
    private readonly SemaphoreSlim gate = new(1, 1);
    private readonly List<long> sequences = [];
    private DiskThread? diskThread; // started by the first append: a log only read needs none
    private LogLock? writerLock;
    private FileStream? writer;
    private string writerPath = string.Empty;
    private long tailLength; // durable bytes of the last segment; appends go here
    private long fileLength; // bytes the open segment file holds: its frames, then the zeros written ahead of them
    private bool sealedTail; // the last segment takes no more appends: the next one starts a segment
    private SegmentLogPhase phase = SegmentLogPhase.Unscanned;
    private Exception? stoppedBy;
    private FenceWatch? fence; // set by a claim: an unclaimed log is never fenced

    public SegmentLog(string name, string directory, long segmentSizeBytes, long preallocationBytes, ILogger diagnostics, WalDisk disk)
    {
        this.name = name;
        this.directory = directory;
        this.segmentSizeBytes = segmentSizeBytes;
        this.preallocationBytes = preallocationBytes;
        this.diagnostics = diagnostics;
        this.disk = disk;
    }

    /// <summary>Writes already-framed bytes as one unit and returns once they are on disk.</summary>
    public async Task AppendAsync(ReadOnlyMemory<byte> frames, CancellationToken cancellationToken)
    {
        await gate.WaitAsync(cancellationToken).ConfigureAwait(false);
        try
        {
            ThrowIfDisposed();
            if (phase == SegmentLogPhase.Stopped)
            {
                throw new IOException($"Log '{name}' takes no appends since a write to it failed ({stoppedBy!.Message}); restart to recover it from disk.", stoppedBy);
            }

            if (phase == SegmentLogPhase.Fenced)
            {
                throw fence!.Refusal();
            }

            await EnsureScannedAsync(cancellationToken).ConfigureAwait(false);

            // The last point where giving up leaves nothing half done; past it the write runs to the end.
            cancellationToken.ThrowIfCancellationRequested();
            try
            {
                // The write and fsync block (Linux has no asynchronous fsync), so they run on the
                // log's own thread, never on a thread-pool worker the grains need (DiskThread).
                diskThread ??= new DiskThread(name);
                await diskThread.RunAsync(() => WriteDurably(frames.Span)).ConfigureAwait(false);
            }
            catch (Exception e) when ((e is IOException or UnauthorizedAccessException) && phase is not SegmentLogPhase.Stopped and not SegmentLogPhase.Fenced)
            {
                Forget(); // nothing was written: the next append starts again from what is on disk
                throw;
            }
        }
        finally
        {
            gate.Release();
        }
    }

    /// <summary>
    /// Takes the log for <paramref name="claimant"/>'s appends, before the first: its lock (one
    /// writer); then the fence of an earlier owner is settled (<see cref="FenceWatch.ClaimAsync"/>);
    /// then its tail is cut if torn, or the log refused if corrupt.
    /// </summary>
    public async Task ClaimAsync(string claimant, CancellationToken cancellationToken)
    {
        await gate.WaitAsync(cancellationToken).ConfigureAwait(false);
        try
        {
            ThrowIfDisposed();
            writerLock ??= TakeLock();
            fence = await FenceWatch.ClaimAsync(name, directory, claimant, diagnostics, cancellationToken).ConfigureAwait(false);
            Forget();
            await EnsureScannedAsync(cancellationToken).ConfigureAwait(false);
        }
        finally
        {
            gate.Release();
        }
    }

    /// <summary>Whether this storage took the log for writing (its lock): else reads leave the log to its writer.</summary>
    public bool Claimed => writerLock is not null;

    /// <summary>Opens the log if needed and captures what a read should cover.</summary>
    public Task<SegmentSnapshot> SnapshotAsync(CancellationToken cancellationToken) =>
        ScannedAsync(() => new SegmentSnapshot(name, directory, [.. sequences], tailLength), cancellationToken);

    /// <summary>
    /// Ends the last segment: the next append starts a new one. Returns that new segment's number,
    /// so every record written so far lies in segments below it.
    /// </summary>
    public Task<long> SealAsync(CancellationToken cancellationToken) => ScannedAsync(SealTail, cancellationToken);

    private long SealTail()
    {
        if (sequences.Count == 0)
        {
            return 0;
        }

        if (tailLength == 0)
        {
            return sequences[^1]; // the last segment is empty: it is already a new stretch
        }

        sealedTail = true;
        return sequences[^1] + 1;
    }

    /// <summary>
    /// Runs <paramref name="body"/> under the gate on a scanned log. A stopped log still serves it:
    /// reads cover up to its last acknowledged byte, and a seal only moves where the next append goes.
    /// </summary>
    private async Task<T> ScannedAsync<T>(Func<T> body, CancellationToken cancellationToken)
    {
        await gate.WaitAsync(cancellationToken).ConfigureAwait(false);
        try
        {
            ThrowIfDisposed();
            await EnsureScannedAsync(cancellationToken).ConfigureAwait(false);
            return body();
        }
        finally
        {
            gate.Release();
        }
    }

    /// <summary>Deletes the segments numbered below <paramref name="sequence"/>, oldest first, except the last one.</summary>
    public int DeleteBefore(long sequence)
    {
        gate.Wait();
        try
        {
            ThrowIfDisposed();
            writerLock ??= TakeLock();
            var present = phase != SegmentLogPhase.Unscanned ? [.. sequences] : Guard("list the segments of", directory, () => SegmentFileName.List(directory));
            var deleted = 0;

            // Oldest first, so an interrupted deletion leaves a suffix of the log, never a hole.
            foreach (var segment in present)
            {
                if (segment >= sequence || segment == present[^1])
                {
                    break;
                }

                var path = SegmentFileName.PathOf(directory, segment);
                Guard("delete segment", path, () => File.Delete(path));
                sequences.Remove(segment);
                deleted++;
            }

            if (deleted > 0)
            {
                LogMessages.SegmentsDeleted(diagnostics, name, deleted, sequence);
            }

            return deleted;
        }
        finally
        {
            gate.Release();
        }
    }

    public async ValueTask DisposeAsync()
    {
        // Waits for an append in flight; later ones find the log disposed. The gate itself is not
        // disposed, so a late caller gets ObjectDisposedException from the check, not from the gate.
        await gate.WaitAsync().ConfigureAwait(false);
        try
        {
            phase = SegmentLogPhase.Disposed;
            diskThread?.Dispose();
            CloseWriter();
            writerLock?.Dispose();
        }
        finally
        {
            gate.Release();
        }
    }

    private async Task EnsureScannedAsync(CancellationToken cancellationToken)
    {
        if (phase != SegmentLogPhase.Unscanned)
        {
            return;
        }

        writerLock ??= TakeLock();
        var found = Guard("list the segments of", directory, () => SegmentFileName.List(directory));
        long length = 0;
        if (found.Length > 0)
        {
            var last = SegmentFileName.PathOf(directory, found[^1]);
            try
            {
                length = await TailRecovery.RecoverAsync(name, last, segmentSizeBytes, diagnostics, cancellationToken).ConfigureAwait(false);
            }
            catch (Exception e) when (e is IOException or UnauthorizedAccessException)
            {
                throw new IOException($"Log '{name}' could not recover segment '{last}': {e.Message}", e);
            }
        }

        sequences.Clear();
        sequences.AddRange(found);
        tailLength = length;
        phase = SegmentLogPhase.Ready;
    }

    private void WriteDurably(ReadOnlySpan<byte> frames)
    {
        var stream = WriterFor(frames.Length);
        var start = tailLength;
        try
        {
            disk.Write(stream, frames); // one call: the stream is unbuffered, so this is one write(2)
            var end = start + frames.Length;
            if (end > fileLength)
            {
                ZeroAhead(stream, end);
            }

            disk.FlushToDisk(stream);
            try
            {
                if (fence?.Fenced(new LogPosition(sequences[^1], end)) == true)
                {
                    Fence(); // this group counts; nothing after it
                }
            }
            catch (LogFencedException)
            {
                Fence(); // not rolled back: past the fence it never counts, and the next owner cuts it
                throw;
            }

            tailLength = end;
        }
        catch (Exception e) when ((e is IOException or UnauthorizedAccessException) && e is not LogFencedException)
        {
            var failure = new IOException($"Log '{name}' could not write {frames.Length} bytes to '{writerPath}' at offset {start}: {e.Message}", e);
            Stop(stream, start, failure);
            throw failure;
        }
    }

    // The group failed, so recovery must never read it: cut it off now, or leave a marker that has
    // recovery cut it; then refuse every later append (see the remarks on the class).
    private void Stop(FileStream stream, long acknowledged, IOException failure)
    {
        CutMarker.CutBackOrMark(disk, stream, writerPath, acknowledged, diagnostics);
        stoppedBy = failure;
        phase = SegmentLogPhase.Stopped;
        CloseWriter();
        LogMessages.LogStopped(diagnostics, failure, name);
    }

    // An fsync after a write that made the file longer must also journal the file's new size, which
    // makes each group commit slower and doubles the disk traffic (docs/decisions.md). So the segment is filled with zeros ahead of its tail, a
    // chunk at a time, and groups overwrite them: the fsync of such a group has only its data to
    // write. The zeros cannot be mistaken for records (a frame of length zero is invalid), a
    // reopened log finds its tail where they begin (TailRecovery), and a segment gives back the
    // zeros it did not use before the next one starts (EndSegment).
    private void ZeroAhead(FileStream stream, long end)
    {
        var target = Math.Min(end + preallocationBytes, Math.Max(segmentSizeBytes, end));
        for (var at = end; at < target; at += Math.Min(Zeros.Length, target - at))
        {
            disk.Write(stream, Zeros.AsSpan(0, (int)Math.Min(Zeros.Length, target - at)));
        }

        stream.Position = end;
        fileLength = target;
    }

    private static readonly byte[] Zeros = new byte[64 * 1024];

    private FileStream WriterFor(int size)
    {
        if (sequences.Count == 0)
        {
            CreateDirectory();
            StartSegment(0);
        }
        else if (tailLength > 0 && (sealedTail || tailLength + size > segmentSizeBytes))
        {
            EndSegment();
            StartSegment(sequences[^1] + 1);
        }
        else if (writer is null)
        {
            OpenLast();
        }

        return writer!;
    }

    // Only the last segment may end in zeros: a reader takes a bad frame in any other for corruption.
    // So they are cut, durably, before the next segment exists. The groups are all fsynced already.
    private void EndSegment()
    {
        if (writer is null)
        {
            OpenLast(); // reopened and sealed before its first append: the zeros may be from the last run
        }

        if (fileLength > tailLength)
        {
            Guard("cut the unused zeros at the end of segment", writerPath, () => disk.Truncate(writer!, tailLength));
        }

        CloseWriter();
    }

    private LogLock TakeLock()
    {
        CreateDirectory();
        return LogLock.Take(name, directory);
    }

    private void CreateDirectory() => Guard("create directory", directory, () => DirectorySync.Create(directory));

    private void StartSegment(long sequence)
    {
        var path = SegmentFileName.PathOf(directory, sequence);
        var stream = Guard("create segment", path, () => OpenWriter(path, FileMode.CreateNew));
        try
        {
            Guard("fsync the directory of segment", path, () => DirectorySync.Flush(directory));
        }
        catch
        {
            // An empty segment whose name may not survive a crash; removing it keeps the next
            // attempt on this very path, which will fsync the directory again.
            stream.Dispose();
            File.Delete(path);
            throw;
        }

        sequences.Add(sequence);
        sealedTail = false;
        writer = stream;
        writerPath = path;
        tailLength = 0;
        fileLength = 0;
        LogMessages.SegmentStarted(diagnostics, name, path);
    }

    private void OpenLast()
    {
        var path = SegmentFileName.PathOf(directory, sequences[^1]);
        var stream = Guard("open segment", path, () =>
        {
            var s = OpenWriter(path, FileMode.Open);
            s.Position = tailLength;
            return s;
        });
        writer = stream;
        writerPath = path;
        fileLength = stream.Length;
    }

    // Unbuffered, so each group is exactly one write call; readers may share the file.
    private static FileStream OpenWriter(string path, FileMode mode) => new(path, new FileStreamOptions
    {
        Mode = mode,
        Access = FileAccess.Write,
        Share = FileShare.Read,
        BufferSize = 0,
        Options = FileOptions.None,
    });

    private void Fence()
    {
        phase = SegmentLogPhase.Fenced;
        CloseWriter();
    }

    private void Forget()
    {
        CloseWriter();
        phase = SegmentLogPhase.Unscanned;
    }

    private void ThrowIfDisposed() => ObjectDisposedException.ThrowIf(phase == SegmentLogPhase.Disposed, this);

    private void CloseWriter()
    {
        writer?.Dispose();
        writer = null;
        writerPath = string.Empty;
    }

    private T Guard<T>(string action, string path, Func<T> operation)
    {
        try
        {
            return operation();
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            throw new IOException($"Log '{name}' could not {action} '{path}': {e.Message}", e);
        }
    }

    private void Guard(string action, string path, Action operation) => Guard(action, path, () =>
    {
        operation();
        return true;
    });
}

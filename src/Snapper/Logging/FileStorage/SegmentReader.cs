using System.Runtime.CompilerServices;

namespace Snapper.Logging.FileStorage;

/// <summary>
/// Reads the records of a <see cref="SegmentSnapshot"/> in append order. Any bad frame found here is
/// corruption, not a torn write (the tail was already cut when the log was opened), so it fails the
/// read instead of silently skipping committed records.
/// </summary>
internal static class SegmentReader
{
    public static async IAsyncEnumerable<ReadOnlyMemory<byte>> ReadAsync(SegmentSnapshot snapshot, [EnumeratorCancellation] CancellationToken cancellationToken)
    {
        // Checked before anything is returned, so a caller never replays half a log that then fails.
        EnsureContiguous(snapshot);
        var sequences = snapshot.Sequences;
        for (var i = 0; i < sequences.Length; i++)
        {
            var path = SegmentFileName.PathOf(snapshot.Directory, sequences[i]);
            var stream = Open(snapshot, path, sequences[i]);
            await using (stream.ConfigureAwait(false))
            {
                // The last segment may be growing: read only what was durable when the read began.
                var limit = i == sequences.Length - 1 ? snapshot.TailLength : stream.Length;
                using var reader = new FrameReader(stream, limit);
                while (await reader.NextAsync(cancellationToken).ConfigureAwait(false))
                {
                    yield return reader.Payload.ToArray();
                }

                if (reader.Problem is not null)
                {
                    var why = i < sequences.Length - 1 ? "a segment before the last must be whole (a crash can tear only the last)" : "its writer found it whole up to there when it opened it";
                    throw LogCorruption.Exception(snapshot.Log, path, reader.FrameStart, $"{reader.Problem}; {why}");
                }
            }
        }
    }

    /// <summary>
    /// Reads a log this process does not write, without changing it (another silo may be appending
    /// to it): every segment must be whole but the last, whose torn tail (<see cref="SegmentDamage"/>:
    /// a group being written, or torn by a crash) ends the read; a cut marker is honoured. The writer
    /// cuts the tail itself when it next opens the log. Corruption fails the read, once a second look
    /// shows it is not a group that was being written while it was read.
    /// </summary>
    public static async IAsyncEnumerable<ReadOnlyMemory<byte>> ReadWithoutRepairAsync(string log, string directory, long segmentSize, [EnumeratorCancellation] CancellationToken cancellationToken)
    {
        // A fenced owner's appends past the fence never count (LogFence), whatever they hold.
        var fenced = System.IO.Directory.Exists(directory) ? LogFence.Read(directory)?.Through : null;
        var sequences = System.IO.Directory.Exists(directory) ? SegmentFileName.List(directory) : [];
        if (fenced is { } through)
        {
            sequences = [.. sequences.Where(s => s <= through.Segment)];
        }

        var snapshot = new SegmentSnapshot(log, directory, sequences, 0);
        EnsureContiguous(snapshot);
        for (var i = 0; i < sequences.Length; i++)
        {
            var path = SegmentFileName.PathOf(directory, sequences[i]);
            var stream = Open(snapshot, path, sequences[i]);
            await using (stream.ConfigureAwait(false))
            {
                var marked = CutMarker.Read(path);
                var limit = Math.Min(marked ?? stream.Length, stream.Length);
                if (fenced is { } end && end.Segment == sequences[i])
                {
                    limit = Math.Min(limit, end.Offset);
                }

                using var reader = new FrameReader(stream, limit);
                while (await reader.NextAsync(cancellationToken).ConfigureAwait(false))
                {
                    yield return reader.Payload.ToArray();
                }

                if (reader.Problem is not null)
                {
                    await EnsureNotCorruptAsync(log, path, stream.SafeFileHandle, reader, limit, i == sequences.Length - 1, marked, segmentSize, cancellationToken).ConfigureAwait(false);
                }
            }
        }
    }

    /// <summary>
    /// Where the intact frames of a log this process does not write end: the last segment and the
    /// offset past its last intact frame, before a torn tail (a fence's end, <see cref="LogFence"/>).
    /// A log corrupt there fails, as a read would: its good frames must not be fenced off.
    /// </summary>
    public static async Task<LogPosition> FindEndAsync(string log, string directory, long segmentSize, CancellationToken cancellationToken)
    {
        var sequences = SegmentFileName.List(directory);
        if (sequences.Length == 0)
        {
            return new LogPosition(0, 0);
        }

        var snapshot = new SegmentSnapshot(log, directory, sequences, 0);
        var path = SegmentFileName.PathOf(directory, sequences[^1]);
        var stream = Open(snapshot, path, sequences[^1]);
        await using (stream.ConfigureAwait(false))
        {
            var marked = CutMarker.Read(path);
            var limit = Math.Min(marked ?? stream.Length, stream.Length);
            using var reader = new FrameReader(stream, limit);
            while (await reader.NextAsync(cancellationToken).ConfigureAwait(false))
            {
            }

            if (reader.Problem is not null)
            {
                await EnsureNotCorruptAsync(log, path, stream.SafeFileHandle, reader, limit, last: true, marked, segmentSize, cancellationToken).ConfigureAwait(false);
            }

            return new LogPosition(sequences[^1], reader.Position);
        }
    }

    // The writer's write lands in the page cache a page at a time, and this read may have seen a
    // page of the group in progress before another: what looks like a later group past a bad frame
    // may be the writer moving on. It cannot have written past that frame while the frame is still
    // bad, so a frame that is bad again on a second look, after the judgement, is corruption.
    private static async Task EnsureNotCorruptAsync(string log, string path, Microsoft.Win32.SafeHandles.SafeFileHandle file, FrameReader reader, long limit, bool last, long? marked, long segmentSize, CancellationToken cancellationToken)
    {
        for (var look = 0; ; look++)
        {
            var damage = SegmentDamage.Judge(file, reader.FrameStart, reader.Problem!, limit, last, marked, segmentSize, countAll: false, cancellationToken);
            if (damage.Kind != DamageKind.Corrupt || (last && marked is null && SegmentDamage.IntactNow(file, reader.FrameStart, RandomAccess.GetLength(file))))
            {
                return;
            }

            if (look == 2 || !last || marked is not null)
            {
                throw LogCorruption.Exception(log, path, reader.FrameStart, damage.Reason);
            }

            await Task.Delay(TimeSpan.FromMilliseconds(50), cancellationToken).ConfigureAwait(false);
            limit = RandomAccess.GetLength(file);
        }
    }

    private static void EnsureContiguous(SegmentSnapshot snapshot)
    {
        var sequences = snapshot.Sequences;
        for (var i = 1; i < sequences.Length; i++)
        {
            var expected = sequences[i - 1] + 1;
            if (sequences[i] != expected)
            {
                throw new InvalidDataException(
                    $"Log '{snapshot.Log}' in '{snapshot.Directory}' is missing segment sequence {expected} ({SegmentFileName.Of(expected)}): " +
                    $"segments {sequences[i - 1]} and {sequences[i]} are present, {sequences[i] - expected} between them are not.");
            }
        }
    }

    private static FileStream Open(SegmentSnapshot snapshot, string path, long sequence)
    {
        try
        {
            // Shared with the writer, and with DeleteSegmentsBefore (Unix lets a deleted file be read on).
            return new FileStream(path, new FileStreamOptions
            {
                Mode = FileMode.Open,
                Access = FileAccess.Read,
                Share = FileShare.ReadWrite | FileShare.Delete,
                BufferSize = 64 * 1024,
                Options = FileOptions.SequentialScan,
            });
        }
        catch (Exception e) when (e is FileNotFoundException or DirectoryNotFoundException)
        {
            throw new InvalidDataException($"Log '{snapshot.Log}': segment sequence {sequence} ('{path}') vanished while being read; was it deleted by DeleteSegmentsBefore?", e);
        }
    }
}

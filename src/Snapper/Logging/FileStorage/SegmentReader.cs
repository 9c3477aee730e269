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
                    throw new InvalidDataException($"Log '{snapshot.Log}': segment '{path}' is corrupt at offset {reader.FrameStart}: {reader.Problem}.");
                }
            }
        }
    }

    /// <summary>
    /// Reads a log this process does not write, without changing it (another silo may be appending
    /// to it): every segment must be whole but the last, whose first bad frame — a group being
    /// written, or torn by a crash — ends the read; a cut marker is honoured. The writer repairs
    /// the tail itself when it next opens the log.
    /// </summary>
    public static async IAsyncEnumerable<ReadOnlyMemory<byte>> ReadWithoutRepairAsync(string log, string directory, [EnumeratorCancellation] CancellationToken cancellationToken)
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
                var limit = CutMarker.Read(path) is { } marked ? Math.Min(marked, stream.Length) : stream.Length;
                if (fenced is { } end && end.Segment == sequences[i])
                {
                    limit = Math.Min(limit, end.Offset);
                }

                using var reader = new FrameReader(stream, limit);
                while (await reader.NextAsync(cancellationToken).ConfigureAwait(false))
                {
                    yield return reader.Payload.ToArray();
                }

                if (reader.Problem is not null && i < sequences.Length - 1)
                {
                    throw new InvalidDataException($"Log '{log}': segment '{path}' is corrupt at offset {reader.FrameStart}: {reader.Problem}.");
                }
            }
        }
    }

    /// <summary>
    /// Where the intact frames of a log this process does not write end: the last segment and the
    /// offset past its last intact frame (a fence's end, <see cref="LogFence"/>).
    /// </summary>
    public static async Task<LogPosition> FindEndAsync(string log, string directory, CancellationToken cancellationToken)
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
            var limit = CutMarker.Read(path) is { } marked ? Math.Min(marked, stream.Length) : stream.Length;
            using var reader = new FrameReader(stream, limit);
            while (await reader.NextAsync(cancellationToken).ConfigureAwait(false))
            {
            }

            return new LogPosition(sequences[^1], reader.Position);
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

namespace Snapper.Logging.FileStorage;

/// <summary>
/// The operator's way past a corrupt log (<see cref="LogCorruption"/>): keeps the frames before the
/// first damage a crash cannot explain and moves everything from there on aside, under names ending
/// in <see cref="Suffix"/> that no reader takes for a segment. Nothing is deleted: the segment the
/// damage is in is copied aside whole before it is cut back, so the offsets in the error still
/// point into the copy. A torn tail is not damage here; the log's next open cuts it as usual.
/// </summary>
internal static class LogSalvage
{
    public const string Suffix = ".corrupt";

    public static async Task<LogSalvageReport> RunAsync(string log, string directory, long segmentSize, CancellationToken cancellationToken)
    {
        var sequences = SegmentFileName.List(directory);
        long kept = 0;
        for (var i = 0; i < sequences.Length; i++)
        {
            if (i > 0 && sequences[i] != sequences[i - 1] + 1)
            {
                var gap = $"segments {sequences[i - 1] + 1} to {sequences[i] - 1} before it are missing, so the log cannot be read past them";
                return await MoveAsideAsync(log, directory, sequences, i, 0, gap, kept, 0, segmentSize, cancellationToken).ConfigureAwait(false);
            }

            var path = SegmentFileName.PathOf(directory, sequences[i]);
            var last = i == sequences.Length - 1;
            var (frames, damage) = await ScanAsync(path, last, segmentSize, cancellationToken).ConfigureAwait(false);
            if (damage is { Kind: DamageKind.Corrupt })
            {
                return await MoveAsideAsync(log, directory, sequences, i, damage.Offset, damage.Reason, kept + frames, damage.FramesAfter, segmentSize, cancellationToken).ConfigureAwait(false);
            }

            kept += frames;
        }

        return new LogSalvageReport(log, null, 0, null, kept, 0, 0, []);
    }

    // The intact frames up to the first bad one, and the judgement of that one (every intact frame after it counted).
    private static async Task<(long Frames, DamageReport? Damage)> ScanAsync(string path, bool last, long segmentSize, CancellationToken cancellationToken)
    {
        var stream = new FileStream(path, FileMode.Open, FileAccess.Read, FileShare.Read);
        await using (stream.ConfigureAwait(false))
        {
            var marked = last ? CutMarker.Read(path) : null;
            var limit = Math.Min(marked ?? stream.Length, stream.Length);
            using var reader = new FrameReader(stream, limit);
            while (await reader.NextAsync(cancellationToken).ConfigureAwait(false))
            {
            }

            var damage = reader.Problem is { } problem
                ? SegmentDamage.Judge(stream.SafeFileHandle, reader.FrameStart, problem, limit, last, marked, segmentSize, countAll: true, cancellationToken)
                : null;
            return (reader.Frames, damage);
        }
    }

    // Later segments go aside last first, so a salvage stopped part way leaves the log a prefix of
    // itself (still refused for the same damage, so running it again finishes the work). The
    // damaged segment is copied aside and cut back to the offset, or moved whole if nothing of it stays.
    private static async Task<LogSalvageReport> MoveAsideAsync(
        string log, string directory, long[] sequences, int index, long offset, string problem, long kept, long framesAfter, long segmentSize, CancellationToken cancellationToken)
    {
        var moved = new List<string>();
        var (lostBytes, lostFrames) = (0L, framesAfter);
        for (var i = sequences.Length - 1; i > index; i--)
        {
            var later = SegmentFileName.PathOf(directory, sequences[i]);
            var (frames, damage) = await ScanAsync(later, last: false, segmentSize, cancellationToken).ConfigureAwait(false);
            lostFrames += frames + (damage?.FramesAfter ?? 0);
            lostBytes += new FileInfo(later).Length;
            moved.Add(Move(later));
            MoveMarker(later);
        }

        var path = SegmentFileName.PathOf(directory, sequences[index]);
        var length = new FileInfo(path).Length;
        lostBytes += length - offset;
        if (offset == 0)
        {
            moved.Add(Move(path));
            MoveMarker(path);
            DirectorySync.Flush(directory);
        }
        else
        {
            var copy = AsideName(path);
            File.Copy(path, copy);
            using (var aside = new FileStream(copy, FileMode.Open, FileAccess.ReadWrite, FileShare.None))
            {
                aside.Flush(flushToDisk: true);
            }

            moved.Add(copy);
            MoveMarker(path); // its length was for the bytes now aside
            DirectorySync.Flush(directory);
            using var segment = new FileStream(path, FileMode.Open, FileAccess.ReadWrite, FileShare.Read);
            segment.SetLength(offset);
            segment.Flush(flushToDisk: true);
        }

        moved.Reverse(); // in log order
        return new LogSalvageReport(log, path, offset, problem, kept, lostBytes, lostFrames, moved);
    }

    private static string Move(string path)
    {
        var aside = AsideName(path);
        File.Move(path, aside);
        return aside;
    }

    private static void MoveMarker(string segment)
    {
        var marker = CutMarker.PathFor(segment);
        if (File.Exists(marker))
        {
            Move(marker);
        }
    }

    // A salvage run again after another keeps what the first moved aside.
    private static string AsideName(string path)
    {
        var aside = path + Suffix;
        for (var n = 1; File.Exists(aside); n++)
        {
            aside = $"{path}{Suffix}-{n}";
        }

        return aside;
    }
}

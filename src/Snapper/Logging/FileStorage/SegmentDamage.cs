using System.Buffers.Binary;
using Microsoft.Win32.SafeHandles;

namespace Snapper.Logging.FileStorage;

/// <summary>
/// Tells a torn last group from corruption at a segment's first bad frame. A crash can only tear
/// the group being written, the last one: its single write may reach the disk in part, a sector at
/// a time, and what did not land reads as zeros, since the writer writes only over the zeros it put
/// ahead of its tail or past the end of the file. So a bad frame is torn only if all of these hold:
/// <list type="number">
/// <item>it is in the last segment, and not before the end a cut marker says was acknowledged;</item>
/// <item>no later group follows it: no intact frame lies past an intact frame that ended a group
/// (<see cref="WalFrame"/> marks those), found by re-synchronising byte by byte after the bad frame;</item>
/// <item>it shows an unfinished write: fewer bytes left than a header, a zero length, a length that
/// runs past the end of the file but not past the segment size (a write that grew the file), or a
/// checksum that fails while a sector the frame covers reads as zeros from the frame on.</item>
/// </list>
/// Anything else, such as a flipped byte with records after it or a segment of garbage, is
/// corruption: records may lie past it, so only the operator may decide to drop them.
/// </summary>
/// <remarks>
/// What this cannot tell apart: damage inside the last group that happens to leave a sector of
/// zeros, or garbage whose first length happens to point past the end of the file but within the
/// segment size, both cut as torn; and a disk that tears a sector into garbage rather than leaving
/// it unwritten (or a file system that shows stale blocks after a crash), refused as corruption.
/// </remarks>
internal static class SegmentDamage
{
    // The unit a disk writes whole.
    private const int Sector = 512;

    // Frames the byte-by-byte search tries: a larger one is found only by following a chain into
    // it, which keeps a search through garbage cheap (each candidate costs a checksum).
    private const int MaxSearchedFrame = 64 * 1024;

    /// <summary>Judges the bad frame at <paramref name="offset"/> of a segment whose readable bytes end at <paramref name="limit"/>.</summary>
    /// <param name="file">The segment, open for reading.</param>
    /// <param name="offset">Where the first bad frame starts (every frame before it is intact).</param>
    /// <param name="problem">What the frame reader found wrong there.</param>
    /// <param name="limit">Where the segment's bytes end for this judgement (its length, or a cut marker).</param>
    /// <param name="last">Whether the segment is its log's last: only that one can be torn.</param>
    /// <param name="acknowledged">What a cut marker says was acknowledged, if there is one: nothing before it can be torn.</param>
    /// <param name="segmentSize">The most a frame of a group that did not start a segment can reach.</param>
    /// <param name="countAll">Count every intact frame past the damage (for salvage), not only until the verdict is sure.</param>
    /// <param name="cancellationToken">Stops a long search.</param>
    public static DamageReport Judge(SafeFileHandle file, long offset, string problem, long limit, bool last, long? acknowledged, long segmentSize, bool countAll, CancellationToken cancellationToken)
    {
        var window = new Window(file, limit);
        if (last && acknowledged is null && window.ZerosFrom(offset, limit))
        {
            return new DamageReport(DamageKind.ZerosAhead, offset, problem, null, 0);
        }

        var (intactAfter, laterGroup, frames) = Survey(window, offset, limit, countAll, cancellationToken);
        var why = !last ? "a segment before the last must be whole (a crash can tear only the last)"
            : acknowledged is { } end && offset < end ? $"it lies before offset {end}, the end of what the log acknowledged (cut marker)"
            : laterGroup is { } later ? $"intact frames of a later group follow it (at offset {later}), so it is not the last group's write"
            : !Unfinished(window, offset, limit, segmentSize) ? "nothing there shows an unfinished write (no sector of zeros, no short file), which is all a crash leaves"
            : null;
        return why is null
            ? new DamageReport(DamageKind.Torn, offset, problem, intactAfter, frames)
            : new DamageReport(DamageKind.Corrupt, offset, $"{problem}; {why}", intactAfter, frames);
    }

    /// <summary>Whether the frame at <paramref name="offset"/> is intact now (a reader of a live log checks whether the log moved under it).</summary>
    public static bool IntactNow(SafeFileHandle file, long offset, long limit) => new Window(file, limit).Intact(offset, searching: false, out _, out _);

    // Re-synchronises after the bad frame: searches byte by byte for an intact frame, follows the
    // chain from it, and searches again where the chain breaks. Stops at the first frame past a
    // group's end (a later group) unless told to count every intact frame.
    private static (long? IntactAfter, long? LaterGroup, long Frames) Survey(Window window, long from, long limit, bool countAll, CancellationToken cancellationToken)
    {
        long? intactAfter = null, laterGroup = null;
        long frames = 0;
        var groupEnded = false;
        var tried = 0;
        for (var at = from + 1; at + WalFrame.HeaderSize < limit; at++)
        {
            if (++tried % (1 << 20) == 0)
            {
                cancellationToken.ThrowIfCancellationRequested();
            }

            // A frame's length is never zero, so no frame starts where four zeros do.
            at = window.PastZeros(at, limit);
            if (at + WalFrame.HeaderSize >= limit || !window.Intact(at, searching: true, out var length, out var endsGroup))
            {
                continue;
            }

            do
            {
                if (groupEnded && laterGroup is null)
                {
                    laterGroup = at;
                    if (!countAll)
                    {
                        return (intactAfter, laterGroup, frames);
                    }
                }

                intactAfter ??= at;
                frames++;
                groupEnded |= endsGroup;
                at += WalFrame.HeaderSize + length;
            }
            while (window.Intact(at, searching: false, out length, out endsGroup));

            // The chain broke at `at`: the search goes on from the byte after it.
        }

        return (intactAfter, laterGroup, frames);
    }

    // Whether the bad frame at `offset` looks like a write that did not finish (see the class remarks).
    private static bool Unfinished(Window window, long offset, long limit, long segmentSize)
    {
        var header = window.Bytes(offset, WalFrame.HeaderSize);
        if (header.Length < WalFrame.HeaderSize)
        {
            return true;
        }

        var length = BinaryPrimitives.ReadUInt32LittleEndian(header);
        var end = offset + WalFrame.HeaderSize + length;
        if (length == 0 || end > limit)
        {
            return length == 0 || end <= segmentSize;
        }

        // A sector the frame covers that reads as zeros from the frame's start: it never landed.
        for (var sector = offset / Sector * Sector; sector < end; sector += Sector)
        {
            var start = Math.Max(sector, offset);
            if (window.ZerosFrom(start, Math.Min(sector + Sector, limit)))
            {
                return true;
            }
        }

        return false;
    }

    /// <summary>Reads a segment by position, through a buffer, so a search byte by byte costs no call each.</summary>
    private sealed class Window(SafeFileHandle file, long limit)
    {
        private readonly byte[] buffer = new byte[1024 * 1024];
        private long start;
        private int count;

        /// <summary>Whether an intact frame starts at <paramref name="at"/>; the search tries only small ones.</summary>
        public bool Intact(long at, bool searching, out uint length, out bool endsGroup)
        {
            (length, endsGroup) = (0, false);
            var header = Bytes(at, WalFrame.HeaderSize);
            if (header.Length < WalFrame.HeaderSize)
            {
                return false;
            }

            length = BinaryPrimitives.ReadUInt32LittleEndian(header);
            if (length == 0 || length > limit - at - WalFrame.HeaderSize || (searching && length > MaxSearchedFrame))
            {
                return false;
            }

            var stored = BinaryPrimitives.ReadUInt32LittleEndian(header[4..]);
            if (length <= buffer.Length - WalFrame.HeaderSize)
            {
                var frame = Bytes(at, WalFrame.HeaderSize + (int)length);
                return frame.Length == WalFrame.HeaderSize + length && WalFrame.Verify(frame[WalFrame.HeaderSize..], stored, out endsGroup);
            }

            // Larger than the buffer: read on its own.
            var whole = new byte[length];
            return RandomAccess.Read(file, whole, at + WalFrame.HeaderSize) == length && WalFrame.Verify(whole, stored, out endsGroup);
        }

        /// <summary>The first offset from <paramref name="from"/> on where a non-zero length could start.</summary>
        public long PastZeros(long from, long to)
        {
            for (var at = from; at < to;)
            {
                var chunk = Available(at, to);
                if (chunk.IsEmpty)
                {
                    break;
                }

                var nonZero = chunk.IndexOfAnyExcept((byte)0);
                if (nonZero >= 0)
                {
                    // The length is little-endian: its last byte may be the first non-zero one.
                    return Math.Max(from, at + nonZero - 3);
                }

                at += chunk.Length;
            }

            return to;
        }

        /// <summary>Whether every byte from <paramref name="from"/> to <paramref name="to"/> is zero (or past the end of the file).</summary>
        public bool ZerosFrom(long from, long to)
        {
            for (var at = from; at < to;)
            {
                var chunk = Available(at, to);
                if (chunk.IsEmpty)
                {
                    return true;
                }

                if (chunk.ContainsAnyExcept((byte)0))
                {
                    return false;
                }

                at += chunk.Length;
            }

            return true;
        }

        /// <summary>Up to <paramref name="length"/> bytes at <paramref name="at"/>; fewer where the segment ends.</summary>
        public ReadOnlySpan<byte> Bytes(long at, int length)
        {
            length = (int)Math.Max(0, Math.Min(length, limit - at));
            if (length == 0)
            {
                return [];
            }

            if (at < start || at + length > start + count)
            {
                Refill(at);
            }

            return buffer.AsSpan((int)(at - start), (int)Math.Min(length, start + count - at));
        }

        // What the buffer holds from `at` on (read afresh if it holds nothing there), up to `to`.
        private ReadOnlySpan<byte> Available(long at, long to)
        {
            if (at >= Math.Min(to, limit))
            {
                return [];
            }

            if (at < start || at >= start + count)
            {
                Refill(at);
            }

            return buffer.AsSpan((int)(at - start), (int)Math.Min(start + count - at, to - at));
        }

        private void Refill(long at)
        {
            start = at;
            count = RandomAccess.Read(file, buffer.AsSpan(0, (int)Math.Min(buffer.Length, limit - at)), at);
        }
    }
}

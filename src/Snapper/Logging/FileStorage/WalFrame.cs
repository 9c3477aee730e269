using System.Buffers.Binary;

namespace Snapper.Logging.FileStorage;

/// <summary>
/// The on-disk framing of one record: <c>length:u32 LE | crc32c:u32 LE (of the payload) | payload</c>.
/// The checksum is what lets recovery tell a torn or rotten tail from real records. The last frame
/// of a group stores its checksum complemented, so a reader knows where each group ended: damage
/// with a whole group after it cannot be a crash in the last group's write (<see cref="SegmentDamage"/>).
/// </summary>
internal static class WalFrame
{
    public const int HeaderSize = 8;

    /// <summary>The bytes <paramref name="group"/> takes once framed; throws if it cannot be written.</summary>
    public static int MeasureGroup(IReadOnlyList<ReadOnlyMemory<byte>> group)
    {
        long size = 0;
        for (var i = 0; i < group.Count; i++)
        {
            // An empty payload would frame as eight zero bytes (CRC-32C of nothing is 0), exactly what a
            // file extended but never written looks like after a crash; forbidding it keeps zeros invalid.
            if (group[i].IsEmpty)
            {
                throw new ArgumentException($"Record {i} of the group is empty; the file log stores only non-empty records.", nameof(group));
            }

            size += HeaderSize + group[i].Length;
        }

        // The group is written from one array with one call.
        if (size > Array.MaxLength)
        {
            throw new ArgumentException($"The group takes {size} bytes framed; one append can write at most {Array.MaxLength}.", nameof(group));
        }

        return (int)size;
    }

    /// <summary>Frames every record of <paramref name="group"/> into <paramref name="destination"/>, back to back.</summary>
    public static void WriteGroup(IReadOnlyList<ReadOnlyMemory<byte>> group, Span<byte> destination)
    {
        for (var i = 0; i < group.Count; i++)
        {
            var payload = group[i].Span;
            var checksum = Crc32C.Compute(payload);
            BinaryPrimitives.WriteUInt32LittleEndian(destination, (uint)payload.Length);
            BinaryPrimitives.WriteUInt32LittleEndian(destination[4..], i == group.Count - 1 ? ~checksum : checksum);
            payload.CopyTo(destination[HeaderSize..]);
            destination = destination[(HeaderSize + payload.Length)..];
        }
    }

    /// <summary>
    /// Whether <paramref name="payload"/> matches the checksum <paramref name="stored"/> in its
    /// header, and if so whether its frame ended a group (a log written before groups were marked
    /// has frames that match plainly only).
    /// </summary>
    public static bool Verify(ReadOnlySpan<byte> payload, uint stored, out bool endsGroup)
    {
        var computed = Crc32C.Compute(payload);
        endsGroup = stored == ~computed;
        return endsGroup || stored == computed;
    }
}

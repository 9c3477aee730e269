using System.Buffers.Binary;
using Snapper.Logging.FileStorage;

namespace Snapper.Tests.Logging.FileStorage;

/// <summary>Payloads that say who wrote them, and a helper to append them.</summary>
internal static class WalTestData
{
    /// <summary>A payload of <paramref name="size"/> bytes starting with (writer, number), filled with a pattern.</summary>
    public static byte[] Payload(int writer, int number, int size = 64)
    {
        var bytes = new byte[size];
        BinaryPrimitives.WriteInt32LittleEndian(bytes, writer);
        BinaryPrimitives.WriteInt32LittleEndian(bytes.AsSpan(4), number);
        for (var i = 8; i < size; i++)
        {
            bytes[i] = (byte)(writer * 31 + number * 7 + i);
        }

        return bytes;
    }

    public static (int Writer, int Number) Identify(ReadOnlySpan<byte> payload)
        => (BinaryPrimitives.ReadInt32LittleEndian(payload), BinaryPrimitives.ReadInt32LittleEndian(payload[4..]));

    /// <summary>Appends groups of one <paramref name="size"/>-byte record each, numbered from <paramref name="first"/>.</summary>
    public static async Task<List<byte[]>> AppendSinglesAsync(FileLogStorage storage, string log, int first, int count, int size)
    {
        var written = new List<byte[]>();
        for (var i = first; i < first + count; i++)
        {
            var payload = Payload(0, i, size);
            await storage.AppendAsync(log, [payload], CancellationToken.None);
            written.Add(payload);
        }

        return written;
    }

    /// <summary>Flips bits of the byte at <paramref name="offset"/> of <paramref name="path"/>: a disk returning garbage.</summary>
    public static void FlipByte(string path, long offset)
    {
        using var file = new FileStream(path, FileMode.Open, FileAccess.ReadWrite);
        file.Position = offset;
        var value = file.ReadByte();
        file.Position = offset;
        file.WriteByte((byte)(value ^ 0x40));
    }
}

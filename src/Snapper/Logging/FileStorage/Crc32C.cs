using System.Buffers.Binary;
using System.Numerics;

namespace Snapper.Logging.FileStorage;

/// <summary>
/// CRC-32C (Castagnoli), the checksum of every log frame. <see cref="BitOperations.Crc32C(uint, ulong)"/>
/// uses the CPU's CRC instruction (SSE4.2, ARMv8) where there is one, so checking a frame costs far
/// less than reading it from disk.
/// </summary>
internal static class Crc32C
{
    /// <summary>The standard CRC-32C of <paramref name="data"/> (init and final xor 0xFFFFFFFF).</summary>
    public static uint Compute(ReadOnlySpan<byte> data) => ~Update(uint.MaxValue, data);

    /// <summary>
    /// The running CRC <paramref name="crc"/> (before its final xor; <see cref="uint.MaxValue"/> to
    /// begin) carried over <paramref name="data"/>: a checksum over several spans without copying
    /// them into one (finish with <c>~</c>).
    /// </summary>
    public static uint Update(uint crc, ReadOnlySpan<byte> data)
    {

        // Eight bytes per instruction; the CRC instruction consumes them least significant byte first,
        // which is why they are read little-endian whatever the machine's byte order.
        while (data.Length >= sizeof(ulong))
        {
            crc = BitOperations.Crc32C(crc, BinaryPrimitives.ReadUInt64LittleEndian(data));
            data = data[sizeof(ulong)..];
        }

        foreach (var b in data)
        {
            crc = BitOperations.Crc32C(crc, b);
        }

        return crc;
    }
}

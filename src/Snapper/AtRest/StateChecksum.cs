using System.Buffers.Binary;
using Snapper.Logging.FileStorage;

namespace Snapper.AtRest;

/// <summary>
/// The checksum an <see cref="IStateStore"/> keeps with each entry and checks on read: CRC-32C over
/// the version (8 bytes, little-endian) and the state, so a flipped bit in either is found.
/// </summary>
public static class StateChecksum
{
    /// <summary>The checksum of an entry of <paramref name="version"/> holding <paramref name="state"/>.</summary>
    public static uint Of(long version, ReadOnlySpan<byte> state)
    {
        Span<byte> header = stackalloc byte[sizeof(long)];
        BinaryPrimitives.WriteInt64LittleEndian(header, version);
        return ~Crc32C.Update(Crc32C.Update(uint.MaxValue, header), state);
    }
}

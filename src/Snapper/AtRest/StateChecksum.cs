using System.Buffers.Binary;
using Snapper.Logging.FileStorage;

namespace Snapper.AtRest;

/// <summary>
/// The checksum an <see cref="IStateStore"/> keeps with each entry and checks on read: CRC-32C over
/// the version and sequence (8 bytes each, little-endian) and the state, so a flipped bit in any is
/// found (a version or sequence read too high would keep every later write out).
/// </summary>
public static class StateChecksum
{
    /// <summary>The checksum of an entry of <paramref name="version"/> and <paramref name="sequence"/> holding <paramref name="state"/>.</summary>
    public static uint Of(long version, long sequence, ReadOnlySpan<byte> state)
    {
        Span<byte> header = stackalloc byte[2 * sizeof(long)];
        BinaryPrimitives.WriteInt64LittleEndian(header, version);
        BinaryPrimitives.WriteInt64LittleEndian(header[sizeof(long)..], sequence);
        return ~Crc32C.Update(Crc32C.Update(uint.MaxValue, header), state);
    }

    /// <summary>The checksum of an entry (<see cref="Of(long, long, ReadOnlySpan{byte})"/>).</summary>
    public static uint Of(StoredState entry) => Of(entry.Version, entry.Sequence, entry.State.Span);
}

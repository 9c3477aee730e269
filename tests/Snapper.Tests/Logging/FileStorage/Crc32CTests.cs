using System.Text;
using Snapper.Logging.FileStorage;

namespace Snapper.Tests.Logging.FileStorage;

public sealed class Crc32CTests
{
    [Fact]
    public void The_standard_check_value_matches()
    {
        Assert.Equal(0xE3069283u, Crc32C.Compute(Encoding.ASCII.GetBytes("123456789")));
        Assert.Equal(0u, Crc32C.Compute([]));
    }

    [Fact]
    public void Every_length_matches_a_bitwise_reference()
    {
        // Lengths around the 8-byte stride exercise the wide loop, the byte tail, and both together.
        var random = new Random(12345);
        for (var length = 0; length <= 70; length++)
        {
            var data = new byte[length];
            random.NextBytes(data);
            Assert.Equal(Reference(data), Crc32C.Compute(data));
        }
    }

    // The textbook reflected CRC-32C, one bit at a time (polynomial 0x82F63B78).
    private static uint Reference(byte[] data)
    {
        var crc = uint.MaxValue;
        foreach (var b in data)
        {
            crc ^= b;
            for (var bit = 0; bit < 8; bit++)
            {
                crc = (crc & 1) != 0 ? (crc >> 1) ^ 0x82F63B78u : crc >> 1;
            }
        }

        return ~crc;
    }
}

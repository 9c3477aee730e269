namespace TpcC.Loading;

/// <summary>
/// TPC-C's non-uniform random function (§2.1.6): NURand(A, x, y) = (((random(0, A) | random(x, y)) + C) % (y − x + 1)) + x,
/// with the specification's A per field and fixed C constants.
/// </summary>
public static class NURand
{
    /// <summary>A for customer ids (range 1..3,000).</summary>
    public const int CustomerIdA = 1023;

    /// <summary>A for item ids (range 1..100,000).</summary>
    public const int ItemIdA = 8191;

    /// <summary>A for last-name numbers (range 0..999).</summary>
    public const int LastNameA = 255;

    /// <summary>C for last names while loading (C-Load).</summary>
    public const int LastNameLoadC = 157;

    /// <summary>
    /// C for last names while running (C-Run): C-Run − C-Load = 66 lies in [65, 119] and is neither
    /// 96 nor 112, as §2.1.6.1 requires.
    /// </summary>
    public const int LastNameRunC = 223;

    /// <summary>C for customer ids (load and run).</summary>
    public const int CustomerIdC = 259;

    /// <summary>C for item ids (load and run).</summary>
    public const int ItemIdC = 7911;

    /// <summary>One draw of NURand(<paramref name="a"/>, <paramref name="x"/>, <paramref name="y"/>) with constant <paramref name="c"/> (taken modulo A + 1).</summary>
    public static int Next(Random random, int a, int x, int y, int c)
    {
        ArgumentNullException.ThrowIfNull(random);
        var left = random.Next(0, a + 1);
        var right = random.Next(x, y + 1);
        return (((left | right) + (c % (a + 1))) % (y - x + 1)) + x;
    }

    /// <summary>
    /// A for a range of <paramref name="range"/> values when the specification uses
    /// <paramref name="specA"/> for <paramref name="specRange"/> values: the specification's A for
    /// ranges at least that large, else the largest 2^k − 1 not above the same share of the range,
    /// so a scaled-down database keeps the specification's skew instead of collapsing onto a few
    /// values (A = 1023 over 3,000 customers becomes 63 over 300 and 7 over 30).
    /// </summary>
    public static int ScaledA(int specA, int specRange, int range)
    {
        if (range >= specRange)
        {
            return specA;
        }

        var target = Math.Max(1L, (long)(specA + 1) * range / specRange);
        var power = 1L;
        while (power * 2 <= target)
        {
            power *= 2;
        }

        return (int)power - 1;
    }
}

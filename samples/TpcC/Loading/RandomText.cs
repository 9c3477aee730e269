namespace TpcC.Loading;

/// <summary>The random strings of TPC-C §4.3.2.2–§4.3.2.7: a-strings, n-strings, zip codes, "ORIGINAL" data.</summary>
public static class RandomText
{
    /// <summary>What §4.3.2.7 puts into 10% of I_DATA and S_DATA values.</summary>
    public const string Original = "ORIGINAL";

    private const string Alphanumeric = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

    /// <summary>A random a-string of <paramref name="min"/> to <paramref name="max"/> alphanumeric characters.</summary>
    public static string AString(Random random, int min, int max) => Chars(random, random.Next(min, max + 1), Alphanumeric);

    /// <summary>A random n-string of exactly <paramref name="length"/> digits.</summary>
    public static string NString(Random random, int length) => Chars(random, length, "0123456789");

    /// <summary>Two random upper-case letters (W_STATE, D_STATE, C_STATE).</summary>
    public static string State(Random random) => Chars(random, 2, "ABCDEFGHIJKLMNOPQRSTUVWXYZ");

    /// <summary>A zip code: 4 random digits then "11111" (§4.3.2.7).</summary>
    public static string Zip(Random random) => NString(random, 4) + "11111";

    /// <summary>I_DATA or S_DATA: an a-string of 26 to 50 characters, holding "ORIGINAL" at a random position in 10% of rows.</summary>
    public static string Data(Random random)
    {
        var data = AString(random, 26, 50);
        if (random.Next(10) != 0)
        {
            return data;
        }

        var at = random.Next(0, data.Length - Original.Length + 1);
        return string.Concat(data.AsSpan(0, at), Original, data.AsSpan(at + Original.Length));
    }

    /// <summary>A money amount uniform in [<paramref name="min"/>, <paramref name="max"/>] in cents.</summary>
    public static decimal Money(Random random, decimal min, decimal max) =>
        random.NextInt64((long)(min * 100), (long)(max * 100) + 1) / 100m;

    /// <summary>A rate uniform in [<paramref name="min"/>, <paramref name="max"/>] with four decimals (W_TAX, D_TAX, C_DISCOUNT).</summary>
    public static decimal Rate(Random random, decimal min, decimal max) =>
        random.Next((int)(min * 10_000), (int)(max * 10_000) + 1) / 10_000m;

    private static string Chars(Random random, int length, string alphabet) =>
        string.Create(length, (random, alphabet), static (span, state) =>
        {
            for (var i = 0; i < span.Length; i++)
            {
                span[i] = state.alphabet[state.random.Next(state.alphabet.Length)];
            }
        });
}

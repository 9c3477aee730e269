namespace TpcC.Loading;

/// <summary>
/// Customer last names (TPC-C §4.3.2.3): three syllables chosen by the digits of a number 0..999.
/// The first 1,000 customers of a district are named after c_id − 1; the others after
/// NURand(255, 0, 999). Names are a pure function of the config and the customer, because the
/// customer and order partitions are functions of the name (<see cref="TpcCDatabase"/>) and a PACT
/// must know its partitions before it runs. C_LAST never changes, so this never goes stale.
/// </summary>
public static class LastNames
{
    private static readonly string[] Syllables = ["BAR", "OUGHT", "ABLE", "PRI", "PRES", "ESE", "ANTI", "CALLY", "ATION", "EING"];

    /// <summary>The name of number <paramref name="number"/> (0..999): 371 is PRICALLYOUGHT.</summary>
    public static string FromNumber(int number)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(number);
        ArgumentOutOfRangeException.ThrowIfGreaterThan(number, 999);
        return string.Concat(Syllables[number / 100], Syllables[number / 10 % 10], Syllables[number % 10]);
    }

    /// <summary>The last name of customer <paramref name="c"/> of district (w, d).</summary>
    public static string Of(TpcCConfig config, int w, int d, int c)
    {
        ArgumentNullException.ThrowIfNull(config);
        if (c <= 1000)
        {
            return FromNumber(c - 1);
        }

        var random = new Random(Seeds.For(config.Seed, Seeds.Stream.LastName, w, d, c));
        return FromNumber(NURand.Next(random, NURand.LastNameA, 0, 999, NURand.LastNameLoadC));
    }
}

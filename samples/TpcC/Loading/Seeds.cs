namespace TpcC.Loading;

/// <summary>
/// Derives independent seeds from a database seed and a row's coordinates (SplitMix64), so every
/// row is generated from its own <see cref="Random"/>: an actor builds its rows without building
/// anyone else's, in any order, and always gets the same values.
/// </summary>
public static class Seeds
{
    /// <summary>What a seed is for; keeps e.g. customer 5's names apart from order 5's lines.</summary>
    public enum Stream
    {
        /// <summary>Warehouse rows.</summary>
        Warehouse = 1,

        /// <summary>District rows.</summary>
        District,

        /// <summary>Customer rows and their history row.</summary>
        Customer,

        /// <summary>The NURand last name of customers past the first 1,000.</summary>
        LastName,

        /// <summary>The permutation of customer ids over a district's initial orders.</summary>
        OrderCustomers,

        /// <summary>Order rows and their lines.</summary>
        Order,

        /// <summary>Item rows.</summary>
        Item,

        /// <summary>Stock rows.</summary>
        Stock,
    }

    /// <summary>The seed of row (a, b, c) of <paramref name="stream"/> in a database seeded <paramref name="seed"/>.</summary>
    public static int For(int seed, Stream stream, int a, int b = 0, int c = 0)
    {
        var z = Mix((ulong)(uint)seed);
        z = Mix(z ^ (ulong)stream);
        z = Mix(z ^ (uint)a);
        z = Mix(z ^ (uint)b);
        z = Mix(z ^ (uint)c);
        return (int)(z ^ (z >> 32));
    }

    private static ulong Mix(ulong z)
    {
        unchecked
        {
            z += 0x9E3779B97F4A7C15UL;
            z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9UL;
            z = (z ^ (z >> 27)) * 0x94D049BB133111EBUL;
            return z ^ (z >> 31);
        }
    }
}

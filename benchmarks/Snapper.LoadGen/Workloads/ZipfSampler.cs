using MathNet.Numerics;
using MathNet.Numerics.Distributions;

namespace Snapper.LoadGen.Workloads;

/// <summary>
/// Zipf over keys 0..actors-1: key k has probability (k+1)^-s / H(actors, s), the distribution of
/// MathNet's <see cref="Zipf"/> (rank k+1 ↦ key k, so key 0 is the hottest).
/// </summary>
/// <remarks>
/// MathNet's <c>Zipf.Sample()</c> recomputes the harmonic number and walks the ranks on every draw:
/// O(actors) per sample (about 0.3 ms at 10,000 actors on this machine), which would make the
/// load generator the bottleneck. So the cumulative distribution is built once, normalized with
/// MathNet's own <see cref="SpecialFunctions.GeneralHarmonic"/>, and each draw is a uniform
/// number from the caller's seeded <see cref="Random"/> looked up by binary search: O(log actors).
/// </remarks>
public sealed class ZipfSampler : IKeySampler
{
    private readonly double[] cumulative;

    /// <summary>Builds the table for <paramref name="actors"/> keys and exponent <paramref name="s"/> (O(actors) once).</summary>
    public ZipfSampler(double s, int actors)
    {
        if (!Zipf.IsValidParameterSet(s, actors))
        {
            throw new ArgumentOutOfRangeException(nameof(s), s, $"Zipf needs s > 0 and at least one actor (s = {s}, actors = {actors}).");
        }

        var harmonic = SpecialFunctions.GeneralHarmonic(actors, s);
        cumulative = new double[actors];
        var sum = 0.0;
        for (var k = 0; k < actors; k++)
        {
            sum += Math.Pow(k + 1, -s) / harmonic;
            cumulative[k] = sum;
        }

        // Rounding must not leave a sliver above the last key that no draw can land in.
        cumulative[^1] = 1.0;
    }

    /// <summary>Probability that one draw is <paramref name="key"/> (for tests and diagnostics).</summary>
    public double Probability(int key) => key == 0 ? cumulative[0] : cumulative[key] - cumulative[key - 1];

    /// <inheritdoc />
    public int Next(Random random)
    {
        ArgumentNullException.ThrowIfNull(random);
        var u = random.NextDouble();
        var index = Array.BinarySearch(cumulative, u);

        // Not found: ~index is the first entry greater than u, which is the key whose bucket holds u.
        return index >= 0 ? index : Math.Min(~index, cumulative.Length - 1);
    }
}

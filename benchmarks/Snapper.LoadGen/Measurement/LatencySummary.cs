namespace Snapper.LoadGen.Measurement;

/// <summary>Latency percentiles of committed transactions, in milliseconds (nearest-rank).</summary>
public sealed record LatencySummary(double P50, double P90, double P99, double P999, double Mean, double Max)
{
    /// <summary>The summary of <paramref name="sorted"/> (ascending), or null when it is empty.</summary>
    public static LatencySummary? Of(IReadOnlyList<double> sorted)
    {
        ArgumentNullException.ThrowIfNull(sorted);
        if (sorted.Count == 0)
        {
            return null;
        }

        var sum = 0.0;
        foreach (var latency in sorted)
        {
            sum += latency;
        }

        return new LatencySummary(
            Percentile(sorted, 0.50),
            Percentile(sorted, 0.90),
            Percentile(sorted, 0.99),
            Percentile(sorted, 0.999),
            sum / sorted.Count,
            sorted[^1]);
    }

    /// <summary>Nearest-rank percentile: the smallest value with at least <paramref name="p"/> of the values at or below it.</summary>
    public static double Percentile(IReadOnlyList<double> sorted, double p)
    {
        ArgumentNullException.ThrowIfNull(sorted);
        var rank = (int)Math.Ceiling(p * sorted.Count);
        return sorted[Math.Clamp(rank - 1, 0, sorted.Count - 1)];
    }
}

namespace Snapper.LoadGen.Measurement;

/// <summary>
/// The transactions still in flight when issuing stopped, which the run waits for before
/// verifying or starting the next mode. A drain much longer than a transaction's latency means
/// transactions were stuck, typically until the runtime's transaction timeout.
/// </summary>
/// <param name="Seconds">From the end of issuing until every loop had finished (or the wait gave up).</param>
/// <param name="Committed">Transactions that committed while draining.</param>
/// <param name="AbortReasons">Aborts while draining, by reason name.</param>
public sealed record DrainSummary(double Seconds, long Committed, IReadOnlyDictionary<string, long> AbortReasons)
{
    /// <summary>A drain longer than this is called out in the results: no healthy transaction takes a second.</summary>
    public const double SlowSeconds = 1.0;

    /// <summary>True when the drain took long enough to suggest stuck transactions.</summary>
    public bool Slow => Seconds > SlowSeconds;
}

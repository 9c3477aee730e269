namespace Snapper.LoadGen.Figures;

/// <summary>One system at one setting (and concurrency) of one experiment: a row of the CSV, a point of a chart.</summary>
/// <param name="Experiment">size, skew, hybrid or pipeline.</param>
/// <param name="Setting">The x value as shown (a size, a distribution, a PACT share, a pipeline depth).</param>
/// <param name="Mode">The system (a LoadGen mode, or hybrid:pact / hybrid:act).</param>
/// <param name="Throughput">Committed transactions per second.</param>
/// <param name="AbortPercent">Aborted attempts, percent.</param>
/// <param name="P50Ms">Median latency of committed transactions (NaN if none committed).</param>
/// <param name="P99Ms">99th percentile latency of committed transactions (NaN if none committed).</param>
/// <param name="Verified">The run's check held (money kept).</param>
/// <param name="InFlight">Transactions the run kept in flight (clients × pipeline). Where an experiment
/// runs a setting at several, a chart and the summary show each system at its best of them.</param>
public sealed record FigurePoint(string Experiment, string Setting, string Mode, double Throughput, double AbortPercent, double P50Ms, double P99Ms, bool Verified, int InFlight = 0);

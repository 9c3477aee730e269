using System.Globalization;
using System.Text;
using Snapper.LoadGen.Options;

namespace Snapper.LoadGen.Figures;

/// <summary>The markdown summary of a figures run: the ratios the charts show, against Orleans' own transactions above all.</summary>
public static class FigureSummary
{
    /// <summary>The summary of <paramref name="points"/>.</summary>
    public static string Render(IReadOnlyList<FigurePoint> points, int actors, double warmup, double duration)
    {
        ArgumentNullException.ThrowIfNull(points);
        var text = new StringBuilder();
        void Line(FormattableString line) => text.AppendLine(line.ToString(CultureInfo.InvariantCulture));
        double At(string experiment, string setting, string mode) =>
            points.FirstOrDefault(p => p.Experiment == experiment && p.Setting == setting && p.Mode == mode)?.Throughput ?? double.NaN;
        string Ratio(double a, double b) => b > 0 ? (a / b).ToString("N1", CultureInfo.InvariantCulture) + "×" : a > 0 ? "∞ (the peer committed nothing)" : "—";

        Line($"# Figures: Snapper vs Orleans' transactions on SmallBank");
        Line($"");
        Line($"{actors:N0} accounts, MultiTransfer, each point one LoadGen invocation with --verify, {warmup:0.#} s warm-up and {duration:0.#} s measured.");
        Line($"");
        Line($"| setting | pact txn/s | act txn/s | orleans-txn txn/s | pact / orleans-txn | act / orleans-txn |");
        Line($"|---|---:|---:|---:|---:|---:|");
        foreach (var (experiment, setting, label) in new[] { ("size", "4", "uniform, 4 actors"), ("skew", "zipf 0.9", "zipf 0.9"), ("skew", "zipf 1.25", "zipf 1.25"), ("skew", "zipf 1.5", "zipf 1.5") })
        {
            var (pact, act, peer) = (At(experiment, setting, ModeNames.Pact), At(experiment, setting, ModeNames.Act), At(experiment, setting, ModeNames.OrleansTxn));
            Line($"| {label} | {pact:N0} | {act:N0} | {peer:N1} | {Ratio(pact, peer)} | {Ratio(act, peer)} |");
        }

        // Each system at its best concurrency (the pipeline sweep), so no one is compared at a depth that suits only the other.
        var best = points.Where(p => p.Experiment == "pipeline").GroupBy(p => p.Mode)
            .ToDictionary(g => g.Key, g => g.MaxBy(p => p.Throughput)!, StringComparer.Ordinal);
        if (best.TryGetValue(ModeNames.OrleansTxn, out var bestPeer))
        {
            Line($"");
            Line($"At each system's best concurrency (uniform, one client): orleans-txn {bestPeer.Throughput:N0} txn/s at {bestPeer.Setting} in flight.");
            foreach (var mode in new[] { ModeNames.Pact, ModeNames.Act })
            {
                if (best.TryGetValue(mode, out var b))
                {
                    Line($"- {mode}: {b.Throughput:N0} txn/s at {b.Setting} in flight, {Ratio(b.Throughput, bestPeer.Throughput)} orleans-txn's best.");
                }
            }
        }

        var unverified = points.Where(p => !p.Verified && !p.Mode.Contains(':', StringComparison.Ordinal)).ToList();
        Line($"");
        Line(unverified.Count == 0 ? (FormattableString)$"Every run kept the money (--verify)." : $"NOT verified: {string.Join(", ", unverified.Select(p => $"{p.Experiment} {p.Setting} {p.Mode}"))}.");
        return text.ToString();
    }
}

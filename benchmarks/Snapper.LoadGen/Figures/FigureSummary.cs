using System.Globalization;
using System.Text;
using Snapper.LoadGen.Options;

namespace Snapper.LoadGen.Figures;

/// <summary>The markdown summary of a figures run: the ratios the charts show, against Orleans' own transactions at their best above all.</summary>
public static class FigureSummary
{
    /// <summary>The summary of <paramref name="points"/>.</summary>
    public static string Render(IReadOnlyList<FigurePoint> points, int actors, double warmup, double duration)
    {
        ArgumentNullException.ThrowIfNull(points);
        var text = new StringBuilder();
        void Line(FormattableString line) => text.AppendLine(line.ToString(CultureInfo.InvariantCulture));
        FigurePoint? Best(string experiment, string setting, string mode) => BestPoints.At(points, experiment, setting, mode);
        string Cell(FigurePoint? p) => p is null ? "—" : string.Create(CultureInfo.InvariantCulture, $"{p.Throughput:N0} @{p.InFlight}");
        string Ratio(FigurePoint? a, FigurePoint? b) => a is null || b is null ? "—"
            : b.Throughput > 0 ? (a.Throughput / b.Throughput).ToString("N1", CultureInfo.InvariantCulture) + "×"
            : a.Throughput > 0 ? "∞ (the peer committed nothing)" : "—";

        Line($"# Figures: Snapper vs Orleans' transactions on SmallBank");
        Line($"");
        Line($"{actors:N0} accounts, MultiTransfer, each point one LoadGen invocation with --verify, {warmup:0.#} s warm-up and {duration:0.#} s measured.");
        Line($"");
        var depths = string.Join(", ", points.Where(p => p.Experiment == "skew").Select(p => p.InFlight).Distinct().Order());
        Line($"Each system at its best concurrency of {depths} transactions in flight (the number after @). orleans-txn takes its accounts in key order, so it cannot deadlock; orleans-txn-parallel, as first written, deposits in parallel and waits out Orleans' lock timeouts when two transfers lock two accounts in opposite orders.");
        Line($"");
        Line($"| setting | pact txn/s | act txn/s | orleans-txn txn/s | orleans-txn-parallel txn/s | pact / orleans-txn | act / orleans-txn |");
        Line($"|---|---:|---:|---:|---:|---:|---:|");
        foreach (var setting in new[] { "uniform", "zipf 0.9", "zipf 1.25", "zipf 1.5" })
        {
            var (pact, act, peer, parallel) = (Best("skew", setting, ModeNames.Pact), Best("skew", setting, ModeNames.Act), Best("skew", setting, ModeNames.OrleansTxn), Best("skew", setting, ModeNames.OrleansTxnParallel));
            Line($"| {setting} | {Cell(pact)} | {Cell(act)} | {Cell(peer)} | {Cell(parallel)} | {Ratio(pact, peer)} | {Ratio(act, peer)} |");
        }

        // The pipeline sweep (one client) shows the same from the other side: throughput against concurrency.
        var best = BestPoints.Of(points.Where(p => p.Experiment == "pipeline")).GroupBy(p => p.Mode)
            .ToDictionary(g => g.Key, g => g.MaxBy(p => p.Throughput)!, StringComparer.Ordinal);
        if (best.TryGetValue(ModeNames.OrleansTxn, out var bestPeer))
        {
            Line($"");
            Line($"At each system's best concurrency (uniform, one client): orleans-txn {bestPeer.Throughput:N0} txn/s at {bestPeer.Setting} in flight.");
            foreach (var mode in new[] { ModeNames.Pact, ModeNames.Act, ModeNames.OrleansTxnParallel })
            {
                if (best.TryGetValue(mode, out var b))
                {
                    Line($"- {mode}: {b.Throughput:N0} txn/s at {b.Setting} in flight, {Ratio(b, bestPeer)} orleans-txn's best.");
                }
            }
        }

        // Only the checks that ran are claimed: a run that did not happen kept nothing.
        var runs = points.Where(p => !p.Mode.Contains(':', StringComparison.Ordinal)).ToList();
        var unverified = runs.Where(p => !p.Verified).ToList();
        var notRun = Experiment.NotRun(Experiment.All(actors, warmup, duration), points);
        Line($"");
        if (runs.Count == 0)
        {
            Line($"Nothing was measured, so nothing was checked.");
        }
        else if (unverified.Count > 0)
        {
            Line($"NOT verified: {string.Join(", ", unverified.Select(p => $"{p.Experiment} {p.Setting} {p.Mode}"))}.");
        }
        else if (notRun.Count > 0)
        {
            Line($"Every run measured kept the money (--verify).");
        }
        else
        {
            Line($"Every run kept the money (--verify).");
        }

        if (notRun.Count > 0 && runs.Count > 0)
        {
            const int Shown = 12;
            var more = notRun.Count > Shown ? $" and {notRun.Count - Shown} more" : "";
            Line($"");
            Line($"These did not run, so nothing was measured or checked there: {string.Join(", ", notRun.Take(Shown))}{more}.");
        }

        return text.ToString();
    }
}

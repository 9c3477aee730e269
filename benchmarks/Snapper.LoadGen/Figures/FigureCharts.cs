using System.Globalization;
using ScottPlot;
using ScottPlot.TickGenerators;

namespace Snapper.LoadGen.Figures;

/// <summary>
/// The experiments' charts, as PNG files (ScottPlot): throughput on a log scale where systems
/// differ by orders of magnitude, one line per system at its best concurrency
/// (<see cref="BestPoints"/>), the settings along the x axis in order.
/// </summary>
public static class FigureCharts
{
    private const int Width = 900;
    private const int Height = 540;

    // Throughput below this is drawn at it, labelled 0: a log axis has no zero.
    private const double Floor = 0.1;

    /// <summary>Writes the chart(s) of <paramref name="experiment"/> from <paramref name="points"/> into <paramref name="folder"/>.</summary>
    public static void Write(string folder, Experiment experiment, IReadOnlyList<FigurePoint> points)
    {
        ArgumentNullException.ThrowIfNull(experiment);
        ArgumentNullException.ThrowIfNull(points);
        var mine = BestPoints.Of(points.Where(p => p.Experiment == experiment.Name)).ToList();
        var labels = experiment.Settings.Select(s => s.Label).Distinct().ToArray();
        // Log scale where systems differ by orders of magnitude; the others read better linear.
        var logScale = experiment.Name is "size" or "skew";
        Save(Path.Combine(folder, $"{experiment.Name}.png"), experiment.Title, experiment.XLabel, "committed transactions / s", labels, logScale,
            mine.GroupBy(p => p.Mode).Select(g => (g.Key, Values(labels, g, p => p.Throughput))));
        if (experiment.Name == "skew")
        {
            var latency = mine.Where(p => !p.Mode.Contains(':', StringComparison.Ordinal)).GroupBy(p => p.Mode)
                .SelectMany(g => new[] { ($"{g.Key} p50", Values(labels, g, p => p.P50Ms)), ($"{g.Key} p99", Values(labels, g, p => p.P99Ms)) });
            Save(Path.Combine(folder, "latency.png"), "Latency of committed transactions vs skew", experiment.XLabel, "ms", labels, logScale: true, latency);
        }
    }

    private static double[] Values(string[] labels, IEnumerable<FigurePoint> points, Func<FigurePoint, double> value)
    {
        var bySetting = points.ToDictionary(p => p.Setting, value, StringComparer.Ordinal);
        return [.. labels.Select(l => bySetting.TryGetValue(l, out var v) ? v : double.NaN)];
    }

    private static void Save(string path, string title, string xLabel, string yLabel, string[] labels, bool logScale, IEnumerable<(string Name, double[] Values)> series)
    {
        var plot = new Plot();
        plot.Title(title);
        plot.XLabel(xLabel);
        plot.YLabel(logScale ? $"{yLabel} (log scale)" : yLabel);
        var xs = Enumerable.Range(0, labels.Length).Select(i => (double)i).ToArray();
        foreach (var (name, values) in series)
        {
            // A point a system did not reach (NaN: nothing committed) is left out, not drawn at zero.
            var kept = xs.Zip(values).Where(p => !double.IsNaN(p.Second)).ToArray();
            var ys = kept.Select(p => logScale ? Math.Log10(Math.Max(p.Second, Floor)) : p.Second).ToArray();
            var line = plot.Add.Scatter(kept.Select(p => p.First).ToArray(), ys);
            line.LegendText = name;
            line.MarkerSize = 8;
            line.LineWidth = 2;
        }

        plot.Axes.Bottom.SetTicks(xs, labels);
        if (logScale)
        {
            plot.Axes.Left.TickGenerator = new NumericAutomatic
            {
                MinorTickGenerator = new LogMinorTickGenerator(),
                IntegerTicksOnly = true,
                LabelFormatter = y => y <= Math.Log10(Floor) ? "0" : Math.Pow(10, y).ToString(y < 0 ? "0.#" : "N0", CultureInfo.InvariantCulture),
            };
        }
        else
        {
            var top = series.SelectMany(s => s.Values).Where(v => !double.IsNaN(v)).DefaultIfEmpty(1).Max();
            plot.Axes.SetLimitsY(0, top * 1.15);
        }

        plot.ShowLegend(Edge.Right); // beside the plot: no line hides behind it
        plot.SavePng(path, Width, Height);
    }
}

using Snapper.LoadGen.Figures;

namespace Snapper.Tests.LoadGen;

/// <summary>The figures' charts and summary, from points made up here (the runs themselves are LoadGen's, tested elsewhere).</summary>
public sealed class FiguresTests
{
    [Fact]
    public void Every_experiment_gets_a_PNG_chart_and_the_summary_gives_the_ratios_against_orleans_txn()
    {
        var experiments = Experiment.All(actors: 1000, warmup: 1, duration: 1);
        var points = new List<FigurePoint>();
        foreach (var experiment in experiments)
        {
            foreach (var (label, options) in experiment.Settings)
            {
                foreach (var mode in options.Modes)
                {
                    // pact 10x the peer everywhere; the peer commits nothing at zipf 1.5.
                    var throughput = mode switch { "pact" => 1000.0, "orleans-txn" => label == "zipf 1.5" ? 0 : 100.0, _ => 300.0 };
                    points.Add(new FigurePoint(experiment.Name, label, mode, throughput, 1.5, 2.0, throughput == 0 ? double.NaN : 9.0, Verified: true));
                }
            }
        }

        var folder = Directory.CreateTempSubdirectory("snapper-figures-");
        try
        {
            foreach (var experiment in experiments)
            {
                FigureCharts.Write(folder.FullName, experiment, points);
            }

            foreach (var chart in experiments.Select(e => e.Name).Append("latency"))
            {
                var bytes = File.ReadAllBytes(Path.Combine(folder.FullName, $"{chart}.png"));
                Assert.True(bytes.Length > 10_000, $"{chart}.png is {bytes.Length} bytes");
                Assert.Equal([0x89, (byte)'P', (byte)'N', (byte)'G'], bytes[..4]);
            }

            var summary = FigureSummary.Render(points, 1000, 1, 1);
            Assert.Contains("| uniform, 4 actors | 1,000 | 300 | 100.0 | 10.0× | 3.0× |", summary, StringComparison.Ordinal);
            Assert.Contains("| zipf 1.5 | 1,000 | 300 | 0.0 | ∞ (the peer committed nothing)", summary, StringComparison.Ordinal);
            Assert.Contains("Every run kept the money", summary, StringComparison.Ordinal);
        }
        finally
        {
            folder.Delete(recursive: true);
        }
    }
}

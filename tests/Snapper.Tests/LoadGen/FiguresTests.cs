using Snapper.LoadGen;
using Snapper.LoadGen.Figures;

namespace Snapper.Tests.LoadGen;

/// <summary>The figures' charts and summary, from points made up here (the runs themselves are LoadGen's, tested elsewhere).</summary>
public sealed class FiguresTests
{
    [Fact]
    public void Every_experiment_gets_a_PNG_chart_and_the_summary_gives_each_system_at_its_best_concurrency()
    {
        var experiments = Experiment.All(actors: 1000, warmup: 1, duration: 1);
        var points = new List<FigurePoint>();
        foreach (var experiment in experiments)
        {
            foreach (var (label, options) in experiment.Settings)
            {
                foreach (var mode in options.Modes)
                {
                    // Each system at its best: pact 10x the ordered peer, each at the depth that suits it
                    // (pact deep, the peer shallow); the parallel peer commits nothing at zipf 1.5.
                    var deep = options.Pipeline == 64;
                    var throughput = mode switch
                    {
                        "pact" => deep ? 1000.0 : 500.0,
                        "orleans-txn" => deep ? 50.0 : 100.0,
                        "orleans-txn-parallel" => label == "zipf 1.5" ? 0 : 10.0,
                        _ => 300.0,
                    };
                    points.Add(new FigurePoint(experiment.Name, label, mode, throughput, 1.5, 2.0, throughput == 0 ? double.NaN : 9.0, Verified: true, options.Clients * options.Pipeline));
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
            Assert.Contains("| uniform | 1,000 @128 | 300 @4 | 100 @4 | 10 @4 | 10.0× | 3.0× |", summary, StringComparison.Ordinal);
            Assert.Contains("| zipf 1.5 | 1,000 @128 | 300 @4 | 100 @4 | 0 @4 | 10.0× | 3.0× |", summary, StringComparison.Ordinal);
            Assert.Contains("of 4, 16, 128 transactions in flight", summary, StringComparison.Ordinal);
            Assert.Contains("Every run kept the money", summary, StringComparison.Ordinal);
        }
        finally
        {
            folder.Delete(recursive: true);
        }
    }

    /// <summary>Issue 51: a figures.json no run wrote was a NullReferenceException, or (null) a summary of dashes and exit 0.</summary>
    [Theory]
    [InlineData("[{\"x\":1}]")]
    [InlineData("[null]")]
    [InlineData("null")]
    [InlineData("[{\"experiment\":\"size\",\"setting\":null,\"mode\":\"pact\",\"throughput\":1,\"abortPercent\":0,\"p50Ms\":1,\"p99Ms\":1,\"verified\":true}]")]
    public async Task Replot_of_a_figures_file_no_run_wrote_is_one_line_and_exit_2(string json)
    {
        var folder = Directory.CreateTempSubdirectory("snapper-replot-");
        try
        {
            await File.WriteAllTextAsync(Path.Combine(folder.FullName, "figures.json"), json);
            var (stdout, stderr) = (new StringWriter(), new StringWriter());
            var exit = await Runner.MainAsync(["figures", "--replot", "--out", folder.FullName], stdout, stderr, CancellationToken.None);

            Assert.Equal(ExitCodes.Usage, exit);
            var line = Assert.Single(stderr.ToString().Split('\n', StringSplitOptions.RemoveEmptyEntries));
            Assert.StartsWith("error: --replot needs", line, StringComparison.Ordinal);
            Assert.Empty(stdout.ToString());
        }
        finally
        {
            folder.Delete(recursive: true);
        }
    }
}

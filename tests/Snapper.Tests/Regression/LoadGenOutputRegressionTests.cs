using System.Globalization;
using Snapper.LoadGen;
using Snapper.LoadGen.Figures;

namespace Snapper.Tests.Regression;

/// <summary>
/// Issue 49, defect 8: <c>listappend --history F --dump F</c> wrote the history to F, then the dump
/// over it, and exited 0; <c>figures</c> with settings it could not run (<c>--duration 100000</c>,
/// <c>--actors 1</c>) replaced an existing figures.json with <c>[]</c>, and its summary still said
/// every run kept the money.
/// </summary>
public sealed class LoadGenOutputRegressionTests
{
    private const string Figures = "[{\"experiment\":\"kept\"}]";

    [Theory]
    [InlineData("--history", "--dump", "listappend --history {0} --dump {0}")]
    [InlineData("--json", "--history", "listappend --json {0} --history {0}")]
    [InlineData("--json", "--dump", "listappend --dump {0} --json {1}")] // the same file, spelt two ways
    [InlineData("--json", "--history", "listappend --json {0} --dump {2} --history {1}")]
    public async Task One_file_named_by_two_output_flags_exits_2_naming_both_before_any_load(string first, string second, string commandLine)
    {
        var folder = Directory.CreateTempSubdirectory("snapper-outputs-");
        try
        {
            var (file, other) = (Path.Combine(folder.FullName, "out.json"), Path.Combine(folder.FullName, "other.json"));
            var spelt = Path.Combine(folder.FullName, ".", "out.json");
            var args = string.Format(CultureInfo.InvariantCulture, commandLine, file, spelt, other).Split(' ')
                .Concat(["--modes", "pact", "--duration", "0.5", "--warmup", "0", "--jit-settle", "0"]).ToArray();
            var (stdout, stderr) = (new StringWriter(), new StringWriter());

            var exit = await Runner.MainAsync(args, stdout, stderr, CancellationToken.None);

            Assert.Equal(ExitCodes.Usage, exit);
            var error = Assert.Single(Lines(stderr));
            Assert.StartsWith("error: ", error, StringComparison.Ordinal);
            Assert.Contains(first, error, StringComparison.Ordinal);
            Assert.Contains(second, error, StringComparison.Ordinal);
            Assert.Empty(stdout.ToString()); // nothing ran
            Assert.False(File.Exists(file), "an output was written");
        }
        finally
        {
            folder.Delete(recursive: true);
        }
    }

    [Theory]
    [InlineData("--duration", "--duration 100000")]
    [InlineData("--warmup", "--warmup 100000")]
    [InlineData("--actors", "--actors 1")]
    public async Task Figures_with_settings_it_cannot_run_exit_2_naming_the_flag_and_keep_the_figures_there(string named, string settings)
    {
        var folder = Directory.CreateTempSubdirectory("snapper-figures-");
        try
        {
            var figures = Path.Combine(folder.FullName, "figures.json");
            await File.WriteAllTextAsync(figures, Figures);
            var (stdout, stderr) = (new StringWriter(), new StringWriter());

            var exit = await Runner.MainAsync(["figures", "--out", folder.FullName, .. settings.Split(' ')], stdout, stderr, CancellationToken.None);

            Assert.Equal(ExitCodes.Usage, exit);
            var error = Assert.Single(Lines(stderr));
            Assert.StartsWith($"error: {named}", error, StringComparison.Ordinal);
            Assert.Empty(stdout.ToString());
            Assert.Equal(Figures, await File.ReadAllTextAsync(figures));
            Assert.Equal(["figures.json"], folder.GetFiles().Select(f => f.Name));
        }
        finally
        {
            folder.Delete(recursive: true);
        }
    }

    [Fact]
    public async Task A_figures_run_stopped_before_it_measured_everything_keeps_the_figures_there_and_claims_no_check_it_did_not_run()
    {
        var folder = Directory.CreateTempSubdirectory("snapper-figures-");
        try
        {
            var figures = Path.Combine(folder.FullName, "figures.json");
            await File.WriteAllTextAsync(figures, Figures);
            using var interrupt = new CancellationTokenSource();
            var (stdout, stderr) = (new StringWriter(), new CancellingWriter("[figures 1/", interrupt));

            // Stopped once the first setting has reported: one of many measured.
            var exit = await FigureRunner.RunAsync(folder.FullName, 1000, 0, 0.2, stdout, stderr, interrupt.Token);

            Assert.Equal(ExitCodes.Interrupted, exit);
            Assert.Equal(Figures, await File.ReadAllTextAsync(figures));
            Assert.True(File.Exists(Path.Combine(folder.FullName, "figures.partial.json")), stderr.ToString());
            Assert.DoesNotContain("Every run kept the money", stdout.ToString(), StringComparison.Ordinal);
            Assert.Contains("did not run", stdout.ToString(), StringComparison.Ordinal);
        }
        finally
        {
            folder.Delete(recursive: true);
        }
    }

    [Fact]
    public void A_summary_of_no_runs_or_of_some_claims_no_check_that_did_not_run()
    {
        Assert.DoesNotContain("kept the money", FigureSummary.Render([], 1000, 1, 1), StringComparison.Ordinal);

        // Every setting but the last measured and verified: the summary says which did not run.
        var experiments = Experiment.All(1000, 1, 1);
        var points = (from experiment in experiments
                      from setting in experiment.Settings
                      from mode in setting.Options.Modes
                      select new FigurePoint(experiment.Name, setting.Label, mode, 100, 0, 1, 2, Verified: true, setting.Options.Clients * setting.Options.Pipeline)).ToList();
        var last = points[^1];
        var summary = FigureSummary.Render([.. points.Where(p => !(p.Experiment == last.Experiment && p.Setting == last.Setting))], 1000, 1, 1);

        Assert.DoesNotContain("Every run kept the money", summary, StringComparison.Ordinal);
        Assert.Contains($"{last.Experiment} {last.Setting}", summary, StringComparison.Ordinal);
    }

    private static List<string> Lines(StringWriter writer) =>
        [.. writer.ToString().Split('\n', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries)];

    // Stderr that cancels once a line containing `trigger` is written.
    private sealed class CancellingWriter(string trigger, CancellationTokenSource interrupt) : StringWriter(CultureInfo.InvariantCulture)
    {
        public override void WriteLine(string? value)
        {
            base.WriteLine(value);
            Check(value);
        }

        public override Task WriteLineAsync(string? value)
        {
            Check(value);
            return base.WriteLineAsync(value);
        }

        private void Check(string? value)
        {
            if (value?.Contains(trigger, StringComparison.Ordinal) == true)
            {
                interrupt.Cancel();
            }
        }
    }
}

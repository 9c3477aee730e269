using System.Globalization;
using System.Text.Json;
using Snapper.LoadGen.Measurement;

namespace Snapper.LoadGen.Figures;

/// <summary>
/// <c>LoadGen figures</c>: runs the Snapper paper's experiments on SmallBank (<see cref="Experiment.All"/>),
/// each setting one side-by-side LoadGen invocation with <c>--verify</c>, and writes what they
/// measured to a folder: <c>figures.json</c>, <c>figures.csv</c>, a PNG chart per experiment and
/// <c>summary.md</c> with the ratios against Orleans' own transactions.
/// </summary>
/// <remarks>
/// Its settings are checked before any run. Only a complete result (every run of every setting
/// measured) replaces what the folder holds; a partial one, stopped or with runs that failed to
/// report, goes to <c>figures.partial.json</c> and <c>.csv</c> beside it, and an empty one nowhere.
/// </remarks>
public static class FigureRunner
{
    /// <summary>Runs every experiment and writes the figures to <paramref name="folder"/>; returns the exit code.</summary>
    public static async Task<int> RunAsync(string folder, int actors, double warmup, double duration, TextWriter stdout, TextWriter stderr, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(stdout);
        ArgumentNullException.ThrowIfNull(stderr);
        if (Experiment.SettingsProblem(actors, warmup, duration) is { } unusable)
        {
            await stderr.WriteLineAsync($"error: {unusable}");
            return ExitCodes.Usage;
        }

        try
        {
            Directory.CreateDirectory(folder);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException or ArgumentException or NotSupportedException)
        {
            await stderr.WriteLineAsync($"error: --out {folder}: {e.Message}");
            return ExitCodes.Usage;
        }

        // Up front, not after the whole run: the figures must be writable where they go.
        if (Options.LoadGenValidation.OutputFileProblem(Path.Combine(folder, "figures.json")) is { } problem)
        {
            await stderr.WriteLineAsync($"error: --out {folder}: cannot write figures.json there: {problem}");
            return ExitCodes.Usage;
        }

        var experiments = Experiment.All(actors, warmup, duration);
        var points = new List<FigurePoint>();
        var failed = false;
        var total = experiments.Sum(e => e.Settings.Count);
        var done = 0;
        foreach (var experiment in experiments)
        {
            foreach (var (label, options) in experiment.Settings)
            {
                if (cancellationToken.IsCancellationRequested)
                {
                    await stderr.WriteLineAsync("figures: interrupted; writing what was measured.");
                    break;
                }

                var output = new StringWriter(CultureInfo.InvariantCulture);
                var outcome = await Runner.ExecuteAsync(options, TextWriter.Null, output, cancellationToken);
                done++;
                if (outcome.ExitCode != ExitCodes.Ok || outcome.Report is null)
                {
                    failed = true;
                    await stderr.WriteLineAsync($"figures: {experiment.Name} {label} failed (exit {outcome.ExitCode}):");
                    await stderr.WriteLineAsync(string.Join('\n', output.ToString().Split('\n').TakeLast(15)));
                }

                foreach (var run in outcome.Report?.Runs ?? [])
                {
                    points.AddRange(PointsOf(experiment.Name, label, options.Clients * options.Pipeline, run));
                }

                var line = outcome.Report is { } report
                    ? string.Join(", ", report.Runs.Select(r => string.Create(CultureInfo.InvariantCulture, $"{r.Mode} {r.Throughput:N0}")))
                    : "no report";
                await stderr.WriteLineAsync(string.Create(CultureInfo.InvariantCulture, $"[figures {done}/{total}] {experiment.Name} {label}, {options.Clients * options.Pipeline} in flight: {line} txn/s"));
            }
        }

        var stopped = failed ? ExitCodes.Failure : ExitCodes.Interrupted;
        if (points.Count == 0)
        {
            await stderr.WriteLineAsync($"figures: nothing was measured, so {folder} is left as it was.");
            return stopped;
        }

        var summary = FigureSummary.Render(points, actors, warmup, duration);
        var notRun = Experiment.NotRun(experiments, points);
        if (notRun.Count > 0)
        {
            await WriteDataAsync(folder, Partial, points);
            await stdout.WriteAsync(summary);
            await stderr.WriteLineAsync($"figures: {notRun.Count} runs did not report, so the result is partial: wrote {Partial}.json and {Partial}.csv to {folder}, leaving figures.json, figures.csv, the charts and summary.md as they were.");
            return failed || !cancellationToken.IsCancellationRequested ? ExitCodes.Failure : ExitCodes.Interrupted;
        }

        await WriteDataAsync(folder, "figures", points);
        File.Delete(Path.Combine(folder, $"{Partial}.json")); // an earlier partial result is superseded
        File.Delete(Path.Combine(folder, $"{Partial}.csv"));
        foreach (var experiment in experiments)
        {
            FigureCharts.Write(folder, experiment, points);
        }

        await File.WriteAllTextAsync(Path.Combine(folder, "summary.md"), summary, CancellationToken.None);
        await stdout.WriteAsync(summary);
        await stdout.WriteLineAsync($"figures: wrote figures.json, figures.csv, summary.md and {experiments.Count + 1} charts to {folder}");
        return failed ? ExitCodes.Failure : cancellationToken.IsCancellationRequested ? ExitCodes.Interrupted : ExitCodes.Ok;
    }

    // Where a partial result goes, beside the complete one it must not replace.
    private const string Partial = "figures.partial";

    /// <summary>Redraws the charts and the summary from the <c>figures.json</c> an earlier run wrote to <paramref name="folder"/>, without running anything.</summary>
    public static async Task<int> ReplotAsync(string folder, int actors, double warmup, double duration, TextWriter stdout, TextWriter stderr)
    {
        ArgumentNullException.ThrowIfNull(stdout);
        ArgumentNullException.ThrowIfNull(stderr);
        if (Experiment.SettingsProblem(actors, warmup, duration) is { } unusable)
        {
            await stderr.WriteLineAsync($"error: {unusable}");
            return ExitCodes.Usage;
        }

        var file = Path.Combine(folder, "figures.json");
        List<FigurePoint> points;
        try
        {
            // A point missing a field, or a field null, is refused by the reader (ReadOptions); a
            // file of null, or a null among the points, is not a run's either.
            var read = JsonSerializer.Deserialize<List<FigurePoint?>>(await File.ReadAllTextAsync(file), ReadOptions) ?? throw new JsonException("it holds null, not a list of points");
            points = read.IndexOf(null) is var missing and >= 0 ? throw new JsonException($"point {missing} is null") : [.. read.OfType<FigurePoint>()];
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException or JsonException)
        {
            await stderr.WriteLineAsync($"error: --replot needs {file} from an earlier run: {e.Message}");
            return ExitCodes.Usage;
        }

        var experiments = Experiment.All(actors, warmup, duration);
        foreach (var experiment in experiments)
        {
            FigureCharts.Write(folder, experiment, points);
        }

        var summary = FigureSummary.Render(points, actors, warmup, duration);
        await File.WriteAllTextAsync(Path.Combine(folder, "summary.md"), summary, CancellationToken.None);
        await stdout.WriteAsync(summary);
        return ExitCodes.Ok;
    }

    private static readonly JsonSerializerOptions JsonOptions = new()
    {
        WriteIndented = true,
        PropertyNamingPolicy = JsonNamingPolicy.CamelCase,
        NumberHandling = System.Text.Json.Serialization.JsonNumberHandling.AllowNamedFloatingPointLiterals,
    };

    private static readonly JsonSerializerOptions ReadOptions = new(JsonOptions)
    {
        RespectNullableAnnotations = true,
        RespectRequiredConstructorParameters = true,
    };

    private static IEnumerable<FigurePoint> PointsOf(string experiment, string setting, int inFlight, RunResult run)
    {
        var verified = run.Verification is { Ok: true };
        yield return Point(experiment, setting, inFlight, run.Mode, run, verified);
        foreach (var (variant, result) in run.Variants ?? new Dictionary<string, RunResult>())
        {
            yield return Point(experiment, setting, inFlight, $"{run.Mode}:{variant}", result, verified);
        }

        foreach (var (kind, result) in run.Kinds ?? new Dictionary<string, RunResult>())
        {
            yield return Point(experiment, setting, inFlight, $"{run.Mode}:{kind}", result, verified);
        }
    }

    private static FigurePoint Point(string experiment, string setting, int inFlight, string mode, RunResult run, bool verified) =>
        new(experiment, setting, mode, run.Throughput, run.AbortPercent, run.LatencyMs?.P50 ?? double.NaN, run.LatencyMs?.P99 ?? double.NaN, verified, inFlight);

    // Each file written whole beside its place and moved there, so a run that dies while writing
    // leaves the earlier file, not half of a new one.
    private static async Task WriteDataAsync(string folder, string name, List<FigurePoint> points)
    {
        await WriteWholeAsync(Path.Combine(folder, $"{name}.json"), JsonSerializer.Serialize(points, JsonOptions));
        var csv = new StringWriter(CultureInfo.InvariantCulture);
        csv.WriteLine("experiment,setting,in_flight,mode,throughput,abort_percent,p50_ms,p99_ms,verified");
        foreach (var p in points)
        {
            csv.WriteLine(string.Create(CultureInfo.InvariantCulture, $"{p.Experiment},{p.Setting},{p.InFlight},{p.Mode},{p.Throughput:F1},{p.AbortPercent:F2},{p.P50Ms:F2},{p.P99Ms:F2},{p.Verified}"));
        }

        await WriteWholeAsync(Path.Combine(folder, $"{name}.csv"), csv.ToString());
    }

    private static async Task WriteWholeAsync(string path, string text)
    {
        var written = $"{path}.{Environment.ProcessId}.tmp";
        await File.WriteAllTextAsync(written, text);
        File.Move(written, path, overwrite: true);
    }
}

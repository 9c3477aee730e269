using Snapper.LoadGen.Options;

namespace Snapper.LoadGen.Figures;

/// <summary>One of the Snapper paper's experiments on SmallBank: a LoadGen invocation per setting, every system side by side in it.</summary>
/// <param name="Name">The experiment's name (file names, CSV).</param>
/// <param name="Title">The chart's title.</param>
/// <param name="XLabel">What the settings are.</param>
/// <param name="Settings">Each setting's label and the options of its invocation.</param>
public sealed record Experiment(string Name, string Title, string XLabel, IReadOnlyList<(string Label, LoadGenOptions Options)> Settings)
{
    /// <summary>
    /// The pipeline depths at which the size and skew experiments run every setting (each of the
    /// 2 clients keeps 2, 8 or 64 transactions in flight): Orleans' transactions peak at a few in
    /// flight, Snapper's PACTs at many, and each system is shown at its best (<see cref="BestPoints"/>).
    /// </summary>
    public static IReadOnlyList<int> Pipelines { get; } = [2, 8, 64];

    /// <summary>The transaction sizes of the size experiment: <c>--actors</c> must give the largest that many distinct accounts.</summary>
    public static IReadOnlyList<int> Sizes { get; } = [2, 4, 8, 16];

    /// <summary>
    /// Why the experiments cannot run with these settings, naming the <c>figures</c> flag, or null.
    /// Checked before any run: settings no invocation can take would otherwise fail every one of them.
    /// </summary>
    public static string? SettingsProblem(int actors, double warmup, double duration)
    {
        const double Max = LoadGenValidation.MaxSeconds;
        if (!(duration > 0 && duration <= Max))
        {
            return Invariant($"--duration must be a number of seconds greater than 0, at most {Max} (was {duration}).");
        }

        if (!(warmup >= 0 && warmup <= Max))
        {
            return Invariant($"--warmup must be a number of seconds from 0 to {Max} (was {warmup}).");
        }

        if (actors < Sizes[^1])
        {
            return $"--actors must be at least {Sizes[^1]}: the size experiment moves money among that many distinct accounts per transaction (was {actors}).";
        }

        foreach (var experiment in All(actors, warmup, duration))
        {
            foreach (var (label, options) in experiment.Settings)
            {
                try
                {
                    LoadGenValidation.Validate(options);
                }
                catch (UsageException e)
                {
                    return $"{e.Message} (in the {experiment.Name} experiment at {label})";
                }
            }
        }

        return null;
    }

    /// <summary>
    /// The invocations' runs of <paramref name="experiments"/> that left no point among
    /// <paramref name="points"/>, as "experiment setting mode @in-flight": none for a complete result.
    /// </summary>
    public static IReadOnlyList<string> NotRun(IEnumerable<Experiment> experiments, IEnumerable<FigurePoint> points)
    {
        ArgumentNullException.ThrowIfNull(experiments);
        var measured = points.Select(p => (p.Experiment, p.Setting, p.Mode, p.InFlight)).ToHashSet();
        return [.. from experiment in experiments
                   from setting in experiment.Settings
                   let inFlight = setting.Options.Clients * setting.Options.Pipeline
                   from mode in setting.Options.Modes
                   where !measured.Contains((experiment.Name, setting.Label, mode, inFlight))
                   select $"{experiment.Name} {setting.Label} {mode} @{inFlight}"];
    }

    /// <summary>The paper's experiments, each invocation measuring <paramref name="duration"/> seconds after <paramref name="warmup"/>.</summary>
    public static IReadOnlyList<Experiment> All(int actors, double warmup, double duration)
    {
        var basis = new LoadGenOptions { Actors = actors, WarmupSeconds = warmup, JitSettleSeconds = 60, DurationSeconds = duration, Verify = true };
        string[] peers = [ModeNames.OrleansTxn, ModeNames.OrleansTxnParallel];
        var skews = new (string Label, Distribution Dist, double Zipf)[]
        {
            ("uniform", Distribution.Uniform, 1.0), ("zipf 0.9", Distribution.Zipf, 0.9), ("zipf 1.0", Distribution.Zipf, 1.0),
            ("zipf 1.25", Distribution.Zipf, 1.25), ("zipf 1.5", Distribution.Zipf, 1.5),
        };
        IEnumerable<(string, LoadGenOptions)> AtEachPipeline(string label, LoadGenOptions options) =>
            Pipelines.Select(depth => (label, options with { Pipeline = depth }));
        return
        [
            new("size", "Throughput vs transaction size (uniform; each at its best concurrency)", "actors per transaction",
                [.. Sizes.SelectMany(size => AtEachPipeline($"{size}", basis with { TxnSize = size, Modes = [ModeNames.Nt, ModeNames.Pact, ModeNames.Act, .. peers] }))]),
            new("skew", "Throughput vs skew (4 actors per transaction; each at its best concurrency)", "actor distribution",
                [.. skews.SelectMany(s => AtEachPipeline(s.Label, basis with { Dist = s.Dist, Zipf = s.Zipf, Modes = [ModeNames.Pact, ModeNames.Act, ModeNames.ActElr, .. peers] }))]),
            new("hybrid", "Hybrid mix at zipf 1.25: throughput vs PACT share", "PACTs, % of transactions",
                [.. new[] { 0, 25, 50, 75, 90, 100 }.Select(p => ($"{p}", basis with { Dist = Distribution.Zipf, Zipf = 1.25, PactPercent = p, Modes = [ModeNames.Hybrid] }))]),
            new("pipeline", "Throughput vs transactions in flight (uniform, one client)", "transactions in flight",
                [.. new[] { 1, 4, 16, 64, 128 }.Select(depth => ($"{depth}", basis with { Clients = 1, Pipeline = depth, Modes = [ModeNames.Pact, ModeNames.Act, .. peers] }))]),
        ];
    }

    private static string Invariant(FormattableString text) => text.ToString(System.Globalization.CultureInfo.InvariantCulture);
}

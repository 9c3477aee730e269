using System.Globalization;
using System.Net;
using Snapper.LoadGen.Nemesis;

namespace Snapper.LoadGen.Options;

/// <summary>
/// The checks that span flags, applied to every <see cref="LoadGenOptions"/> before a run, whether
/// parsed (<see cref="LoadGenCommandLine"/> checked each flag on its own already) or built in code;
/// and the up-front probes of what a run will need (a writable, fsyncable log directory).
/// </summary>
public static class LoadGenValidation
{
    /// <summary>The most silos <c>--silos</c> starts in one process.</summary>
    public const int MaxSilos = 16;

    /// <summary>The longest <c>--duration</c> and <c>--warmup</c>: per-second epochs are kept in arrays sized by them.</summary>
    public const double MaxSeconds = 24 * 3600;

    /// <summary>The modes each workload runs in.</summary>
    public static IReadOnlyDictionary<string, IReadOnlyList<string>> WorkloadModes { get; } = new Dictionary<string, IReadOnlyList<string>>(StringComparer.Ordinal)
    {
        [LoadGenCommandLine.SmallBank] = ModeNames.Supported,
        [LoadGenCommandLine.ListAppend] = [ModeNames.Pact, ModeNames.Act, ModeNames.ActElr, ModeNames.Hybrid],
        [LoadGenCommandLine.TpcC] = [ModeNames.Pact, ModeNames.Act, ModeNames.Hybrid],
        [LoadGenCommandLine.Nested] = [ModeNames.Pact, ModeNames.Act, ModeNames.ActElr, ModeNames.Hybrid],
    };

    /// <summary>True for the workloads whose transactions append to lists and write a history <c>check</c> reads.</summary>
    public static bool WritesHistory(string workload) => workload is LoadGenCommandLine.ListAppend or LoadGenCommandLine.Nested;

    /// <summary>Checks <paramref name="options"/> as a whole.</summary>
    /// <exception cref="UsageException">The options cannot be run; the message names the flag.</exception>
    public static void Validate(LoadGenOptions options)
    {
        ArgumentNullException.ThrowIfNull(options);
        if (!WorkloadModes.TryGetValue(options.Workload, out var allowed))
        {
            throw new UsageException($"unknown workload '{options.Workload}'; use {string.Join(", ", WorkloadModes.Keys)}.");
        }

        if (options.Modes.Count == 0)
        {
            throw new UsageException("--modes lists no mode.");
        }

        if (options.Modes.FirstOrDefault(m => !allowed.Contains(m)) is { } unknown)
        {
            throw new UsageException($"--modes: {options.Workload} has no mode '{unknown}'; use {string.Join(", ", allowed)}.");
        }

        if (options.Modes.Distinct(StringComparer.Ordinal).Count() != options.Modes.Count)
        {
            throw new UsageException("--modes lists a mode twice.");
        }

        Require(options.Silos is >= 1 and <= MaxSilos, $"--silos must be from 1 to {MaxSilos} (was {options.Silos}).");
        if (options.Cluster is { } cluster)
        {
            Require(options.Silos == 1, "--silos and --cluster exclude each other: --silos starts silos in this process, --cluster drives running ones.");
            try
            {
                Endpoints(string.Join(',', cluster));
            }
            catch (FormatException e)
            {
                throw new UsageException($"--cluster: {e.Message}.", e);
            }
        }

        Require(options.Cluster is not null || options.ResponseTimeoutSeconds == LoadGenOptions.DefaultResponseTimeoutSeconds, "--response-timeout is the --cluster client's; the embedded silos' calls keep Orleans' own.");
        CheckNemesis(options);
        if (options.Cluster is not null && SilosOwnFlags(options) is { Count: > 0 } siloFlags)
        {
            var named = siloFlags.Count == 1 ? siloFlags[0] : $"{string.Join(", ", siloFlags[..^1])} and {siloFlags[^1]}";
            throw new UsageException($"{named} {(siloFlags.Count == 1 ? "is" : "are")} for the silos this process starts; with --cluster each SiloHost takes its own: drop {(siloFlags.Count == 1 ? "it" : "them")} here.");
        }

        Require(options.LogDir is null || options.Logger == LoggerKind.File, "--log-dir is the file logger's folder, and --logger is not file: add --logger file, or drop --log-dir.");
        Require(options.Connection == LoadGenCommandLine.DevelopmentStorage || options.Logger == LoggerKind.AzureTable, "--connection is the azure-table logger's storage, and --logger is not azure-table: add --logger azure-table, or drop --connection.");
        if (options.OrleansLockTimeoutMs is { } lockTimeout)
        {
            Require(lockTimeout is >= 1 and <= 600_000, $"--orleans-lock-timeout must be from 1 to 600000 ms (was {lockTimeout}).");
            Require(options.Modes.Any(ModeNames.IsOrleansTxn), $"--orleans-lock-timeout sets the lock timeouts of Orleans' own transactions, which none of --modes {string.Join(',', options.Modes)} runs: add orleans-txn or orleans-txn-parallel, or drop the flag.");
            Require(options.Cluster is null, "--orleans-lock-timeout sets the embedded silos' lock timeouts; with --cluster, give it to each SiloHost instead.");
        }

        Require(options.ActAttempts >= 1, $"--act-attempts must be at least 1 (was {options.ActAttempts}).");
        Require(options.ActAttempts == 1 || options.Workload == LoadGenCommandLine.SmallBank, $"--act-attempts is only for the smallbank workload, not {options.Workload}.");

        Require(options.PactAttempts is >= 1 and <= 1000, $"--pact-attempts must be from 1 to 1000 (was {options.PactAttempts}).");
        Require(options.PactAttempts == 1 || !WritesHistory(options.Workload), $"--pact-attempts is not for {options.Workload}: its history records one tid per transaction.");

        if (!WritesHistory(options.Workload))
        {
            Require(options.History is null, $"--history is only for the listappend and nested workloads, not {options.Workload}.");
            Require(options.Dump is null, $"--dump is only for the listappend and nested workloads, not {options.Workload}.");
        }

        CheckOutputsDiffer(options);

        if (options.Workload == LoadGenCommandLine.TpcC)
        {
            Require(options.Warehouses >= 1, $"--warehouses must be at least 1 (was {options.Warehouses}).");
            Require(options.Dist == Distribution.Uniform, "--dist: tpcc draws its inputs as TPC-C §2 specifies (NURand); the keys only seed that draw, so only uniform applies.");
        }
        else
        {
            Require(!options.NewOrderOnly, $"--neworder-only is only for the tpcc workload, not {options.Workload}.");
        }

        Require(options.TxnSize >= 1 && options.Actors >= 1 && options.Pipeline >= 1 && options.Clients >= 1, "--txn-size, --actors, --pipeline and --clients must each be at least 1.");
        Require(Enum.IsDefined(options.Dist), $"--dist: unknown distribution {(int)options.Dist}.");
        Require(Enum.IsDefined(options.Logger), $"--logger: unknown logger {(int)options.Logger}.");
        Require(options.Zipf > 0 && double.IsFinite(options.Zipf), Invariant($"--zipf must be a number greater than 0 (was {options.Zipf})."));
        Require(options.WarmupSeconds >= 0 && options.DurationSeconds > 0, "--warmup must be at least 0 and --duration greater than 0.");
        Require(options.LogDelayMs is >= 0 and <= 10_000, $"--log-delay-ms must be from 0 to 10000 (was {options.LogDelayMs}).");
        Require(options.CheckpointIntervalSeconds is >= 0 and <= 86_400, $"--checkpoint-interval must be from 0 to 86400 (was {options.CheckpointIntervalSeconds}).");
        Require(options.UserAborts is >= 0 and <= 100, $"--user-aborts must be from 0 to 100 (was {options.UserAborts}).");
        Require(options.PactPercent is >= 0 and <= 100, $"--pact-percent must be from 0 to 100 (was {options.PactPercent}).");
        Require(options.TxnSize <= options.Actors, $"--txn-size {options.TxnSize} needs at least that many distinct actors, but --actors is {options.Actors}.");
        if (FitsInMemory("--actors", options.Actors, BytesPerActor, "for LoadGen's per-actor tables") is { } tooManyActors)
        {
            throw new UsageException(tooManyActors);
        }

        if (options.Workload == LoadGenCommandLine.TpcC && FitsInMemory("--warehouses", options.Warehouses, BytesPerWarehouse, "to load each mode's database") is { } tooManyWarehouses)
        {
            throw new UsageException(tooManyWarehouses);
        }

        // The loops are plain tasks; past this the measurement is of the thread pool, not of Snapper.
        const long maxLoops = 100_000;
        Require((long)options.Clients * options.Pipeline <= maxLoops, $"--clients × --pipeline is {(long)options.Clients * options.Pipeline}; at most {maxLoops} transactions can be in flight.");

        Require(options.DurationSeconds <= MaxSeconds && options.WarmupSeconds <= MaxSeconds, $"--duration and --warmup are limited to {MaxSeconds} seconds.");
    }

    // The nemesis faults the cluster under test only: its own silos, or from a client (requests,
    // not filters) running SiloHosts on this machine.
    private static void CheckNemesis(LoadGenOptions options)
    {
        try
        {
            if (options.Nemesis.Count > 0)
            {
                NemesisFaults.Parse(string.Join(',', options.Nemesis));
            }
        }
        catch (FormatException e)
        {
            throw new UsageException($"--nemesis: {e.Message}.", e);
        }

        Require(options.NemesisRate > 0 && options.NemesisRate <= NemesisFaults.MaxRate, Invariant($"--nemesis-rate must be a number greater than 0, at most {NemesisFaults.MaxRate} (was {options.NemesisRate})."));
        Require(
            options.NemesisRate == NemesisFaults.DefaultRate || options.Nemesis.Any(NemesisFaults.FromAClient.Contains),
            "--nemesis-rate paces deactivate and migrate, but --nemesis lists neither.");
        if (options.Cluster is not { } cluster || options.Nemesis.Count == 0)
        {
            return;
        }

        if (options.Nemesis.FirstOrDefault(f => !NemesisFaults.FromAClient.Contains(f)) is { } filter)
        {
            throw new UsageException($"--nemesis {filter} needs this process's own silos (a call filter, a response timeout); with --cluster only {string.Join(" and ", NemesisFaults.FromAClient)} are possible.");
        }

        foreach (var gateway in cluster)
        {
            Require(IPAddress.IsLoopback(Endpoint(gateway).Address), $"--nemesis with --cluster: gateway {gateway} is not on loopback; the nemesis faults only a test cluster on this machine.");
        }
    }

    // Each output flag writes its own file, one after another: two naming one file would leave only
    // the last written there.
    private static void CheckOutputsDiffer(LoadGenOptions options)
    {
        var comparison = OperatingSystem.IsWindows() || OperatingSystem.IsMacOS() ? StringComparison.OrdinalIgnoreCase : StringComparison.Ordinal;
        (string Flag, string? Path)[] outputs = [("--json", options.Json), ("--history", options.History), ("--dump", options.Dump)];
        for (var i = 0; i < outputs.Length; i++)
        {
            for (var j = i + 1; j < outputs.Length; j++)
            {
                if (outputs[i].Path is { } first && outputs[j].Path is { } second && string.Equals(FullPath(first), FullPath(second), comparison))
                {
                    throw new UsageException($"{outputs[i].Flag} and {outputs[j].Flag} both name {first}: each writes a file of its own, so give them different files.");
                }
            }
        }
    }

    private static string FullPath(string path)
    {
        try
        {
            return Path.GetFullPath(path);
        }
        catch (Exception e) when (e is ArgumentException or NotSupportedException or PathTooLongException)
        {
            return path; // the output probe names what is wrong with it
        }
    }

    // The embedded silos' flags given away from their defaults: with --cluster they would do nothing.
    private static List<string> SilosOwnFlags(LoadGenOptions options)
    {
        var given = new List<string>();
        if (options.Logger != LoggerKind.Memory)
        {
            given.Add("--logger");
        }

        if (options.LogDir is not null)
        {
            given.Add("--log-dir");
        }

        if (options.Connection != LoadGenCommandLine.DevelopmentStorage)
        {
            given.Add("--connection");
        }

        if (options.LogDelayMs != 0)
        {
            given.Add("--log-delay-ms");
        }

        if (options.CheckpointIntervalSeconds != (int)Snapper.Configuration.SnapperOptions.DefaultCheckpointInterval.TotalSeconds)
        {
            given.Add("--checkpoint-interval");
        }

        return given;
    }

    /// <summary>
    /// Whether a report can be written to <paramref name="path"/> after the run: its folder exists
    /// and a file can be created there (an existing file is opened for writing, not changed); null
    /// if so, else why not. Run before any load, so a bad path fails at once, not after the run.
    /// </summary>
    public static string? OutputFileProblem(string path)
    {
        ArgumentException.ThrowIfNullOrEmpty(path);
        try
        {
            if (Directory.Exists(path))
            {
                return "it is a directory";
            }

            var existed = File.Exists(path);
            using (new FileStream(path, FileMode.OpenOrCreate, FileAccess.Write, FileShare.ReadWrite))
            {
            }

            if (!existed)
            {
                File.Delete(path);
            }

            return null;
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException or NotSupportedException or ArgumentException)
        {
            return e.Message;
        }
    }

    /// <summary>
    /// Creates <paramref name="directory"/> if missing and writes, fsyncs and deletes a probe file
    /// in it, as the file logger will; null if that worked, else the OS's reason. Run before any
    /// load, so a directory the logger cannot use fails the run at once rather than every transaction.
    /// </summary>
    public static string? LogDirectoryProblem(string directory)
    {
        ArgumentException.ThrowIfNullOrEmpty(directory);
        if (File.Exists(directory))
        {
            return "it is a file, not a directory";
        }

        var probe = Path.Combine(directory, $".snapper-probe-{Environment.ProcessId}");
        try
        {
            Directory.CreateDirectory(directory);
            using (var stream = new FileStream(probe, FileMode.Create, FileAccess.Write, FileShare.None, 1, FileOptions.None))
            {
                stream.WriteByte(1);
                stream.Flush(flushToDisk: true);
            }

            File.Delete(probe);
            return null;
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException or NotSupportedException or ArgumentException)
        {
            return e.Message;
        }
    }

    /// <summary>Parses <c>host:port[,host:port...]</c>; throws <see cref="FormatException"/> naming the bad entry.</summary>
    public static IPEndPoint[] Endpoints(string text)
    {
        ArgumentNullException.ThrowIfNull(text);
        var entries = text.Split(',', StringSplitOptions.TrimEntries | StringSplitOptions.RemoveEmptyEntries);
        return entries.Length == 0 ? throw new FormatException("give at least one gateway as host:port") : [.. entries.Select(Endpoint)];
    }

    /// <summary>Parses <c>host:port</c> (see <see cref="OptionChecks.Endpoint"/>).</summary>
    public static IPEndPoint Endpoint(string text) => OptionChecks.Endpoint(text);

    // What a run holds in memory per actor and per warehouse, measured (10 million SmallBank
    // accounts: 1.1 GB more than 10,000; 8 TPC-C warehouses: 140 MB more than 1), and the share of
    // the machine's memory a run may plan to fill (the silos need the rest). Past it a run would
    // die of OutOfMemory, or page, minutes into loading, instead of saying so here.
    private const long BytesPerActor = 110;
    private const long BytesPerWarehouse = 20L << 20;
    private const double MemoryShare = 0.5;

    // Null if count × bytesEach fits in this machine's share; else a line naming the flag and the most it takes here.
    private static string? FitsInMemory(string flag, long count, long bytesEach, string what)
    {
        var budget = (long)(GC.GetGCMemoryInfo().TotalAvailableMemoryBytes * MemoryShare);
        if (count * bytesEach <= budget)
        {
            return null;
        }

        return Invariant($"{flag} {count} needs about {count * bytesEach / 1e9:0.#} GB {what}, more than half of this machine's {budget / MemoryShare / 1e9:0.#} GB: at most {budget / bytesEach} here.");
    }

    private static void Require(bool condition, string message)
    {
        if (!condition)
        {
            throw new UsageException(message);
        }
    }

    private static string Invariant(FormattableString text) => text.ToString(CultureInfo.InvariantCulture);
}

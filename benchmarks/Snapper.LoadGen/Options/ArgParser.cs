using System.Globalization;

namespace Snapper.LoadGen.Options;

/// <summary>
/// Parses <c>WORKLOAD [--flag value | --flag=value]...</c> by hand (SiloHost's flags are on
/// System.CommandLine already; this parser is the next to move). Every error is a
/// <see cref="UsageException"/> whose message names the flag, so a typo in a long benchmark script
/// is found before the silo starts.
/// </summary>
public static class ArgParser
{
    /// <summary>The usage text printed by <c>--help</c> and after a usage error.</summary>
    public const string Usage = """
        Usage: Snapper.LoadGen WORKLOAD [options]
               Snapper.LoadGen check --history FILE --dump FILE
               Snapper.LoadGen idle [--duration S]

        Workloads:
          smallbank                SmallBank MultiTransfer
          listappend               each transaction appends its tid to the lists of --txn-size actors
                                   (modes act, act-elr, pact, hybrid; checked Elle-style with --verify or check)
          tpcc                     TPC-C's five transactions at the standard mix, one database per mode, loaded
                                   before the mode runs (modes pact, act, hybrid; one row per transaction type)
          check                    check a listappend history against a list dump; exit 0 ok, 1 violations
          idle [--duration S]      start the silo, then measure its CPU use while idle (default 10 s)

        Options:
          --modes LIST             comma list of modes to run in order (default nt,pact,act; listappend: pact,act;
                                   tpcc: pact,act,hybrid)
                                   supported: nt, pact, act, act-elr, hybrid; planned: orleans-txn
          --pact-percent P         hybrid: percentage of transactions issued as PACTs, 0-100 (default 90)
          --warehouses N           tpcc: warehouses per mode's database, at least 1 (default 2)
          --neworder-only          tpcc: issue only NewOrder instead of the standard mix
          --dist NAME              uniform | hotspot | zipf (default uniform)
          --zipf S                 Zipf exponent, > 0 (default 1.0)
          --txn-size N             actors per transaction, all distinct (default 4); smallbank: 1 debited + N-1 recipients
          --actors N               number of actors per mode (default 10000)
                                   (tpcc: --actors and --txn-size only seed each transaction's input draw)
          --pipeline N             transactions in flight per client (default 64)
          --clients N              clients (default 2)
          --warmup SECONDS         load before measuring, excluded from stats (default 5)
          --duration SECONDS       measured time per mode (default 10)
          --logger KIND            none | memory | file (default memory)
          --log-dir DIR            log directory of the file logger (default: a temporary folder, deleted afterwards)
          --log-delay-ms N         add N ms to every log write, standing in for cloud storage latency (default 0)
          --silos N                silos of the embedded cluster, all in this process on loopback (default 1)
          --cluster LIST           host:port[,host:port...]: gateways of running SiloHosts to drive as an Orleans
                                   client instead of embedded silos (the silos' --logger applies, not this one's)
          --json FILE              also write the results as JSON
          --history FILE           listappend: write one JSON line per finished transaction
          --dump FILE              listappend: after the run, read every actor's list and write them as JSON
          --verify                 smallbank: after each mode, check the touched accounts still hold all the money;
                                   listappend: after the run, check the history against the lists (Elle-style);
                                   tpcc: after each mode, check TPC-C consistency conditions 1-4 (TPC-C 3.3.2)
          --seed N                 seed of every actor choice (default 42)
          --help                   this text

        Exit codes: 0 ok, 1 verification or run failure, 2 usage error, 130 interrupted (Ctrl+C).
        """;

    /// <summary>The most silos <c>--silos</c> starts in one process.</summary>
    public const int MaxSilos = 16;

    /// <summary>The TPC-C workload's name.</summary>
    public const string TpcC = "tpcc";

    /// <summary>The workloads this build can run.</summary>
    public static IReadOnlyList<string> Workloads { get; } = ["smallbank", "listappend", TpcC];

    /// <summary>The default modes of <c>listappend</c>, where <c>nt</c> has nothing to check.</summary>
    public static IReadOnlyList<string> ListAppendDefaultModes { get; } = [ModeNames.Pact, ModeNames.Act];

    /// <summary>The modes <c>tpcc</c> runs in, which are also its default.</summary>
    public static IReadOnlyList<string> TpcCModes { get; } = [ModeNames.Pact, ModeNames.Act, ModeNames.Hybrid];

    /// <summary>Parses the arguments after the program name.</summary>
    /// <exception cref="UsageException">A flag, value, mode or workload is unknown, malformed or not built yet.</exception>
    public static ParseResult Parse(IReadOnlyList<string> args)
    {
        ArgumentNullException.ThrowIfNull(args);
        if (args.Count == 0)
        {
            throw new UsageException("No workload given: the first argument must be a workload (smallbank, listappend, tpcc) or check.");
        }

        if (IsHelp(args[0]))
        {
            return new ParseResult(true, new LoadGenOptions());
        }

        var options = new LoadGenOptions { Workload = ParseWorkload(args[0]) };
        for (var i = 1; i < args.Count; i++)
        {
            var arg = args[i];
            if (IsHelp(arg))
            {
                return new ParseResult(true, options);
            }

            if (!arg.StartsWith("--", StringComparison.Ordinal) || arg.Length == 2)
            {
                throw new UsageException($"Unexpected argument '{arg}': only the workload is positional; options start with --.");
            }

            // Both "--flag value" and "--flag=value".
            var equals = arg.IndexOf('=', StringComparison.Ordinal);
            var flag = equals < 0 ? arg : arg[..equals];
            string? inline = equals < 0 ? null : arg[(equals + 1)..];

            if (flag == "--verify")
            {
                options = options with { Verify = inline is null || ParseBool(flag, inline) };
                continue;
            }

            if (flag == "--neworder-only")
            {
                RequireTpcC(flag, options.Workload);
                options = options with { NewOrderOnly = inline is null || ParseBool(flag, inline) };
                continue;
            }

            string Value()
            {
                if (inline is not null)
                {
                    return inline;
                }

                if (i + 1 >= args.Count || (args[i + 1].StartsWith("--", StringComparison.Ordinal) && !LooksNumeric(args[i + 1])))
                {
                    throw new UsageException($"{flag} needs a value.");
                }

                return args[++i];
            }

            options = flag switch
            {
                "--modes" => options with { Modes = ParseModes(flag, Value()) },
                "--pact-percent" => options with { PactPercent = ParseInt(flag, Value(), min: 0) },
                "--dist" => options with { Dist = ParseDistribution(flag, Value()) },
                "--zipf" => options with { Zipf = ParseDouble(flag, Value(), min: 0, minInclusive: false) },
                "--txn-size" => options with { TxnSize = ParseInt(flag, Value(), min: 1) },
                "--actors" => options with { Actors = ParseInt(flag, Value(), min: 1) },
                "--pipeline" => options with { Pipeline = ParseInt(flag, Value(), min: 1) },
                "--clients" => options with { Clients = ParseInt(flag, Value(), min: 1) },
                "--warmup" => options with { WarmupSeconds = ParseDouble(flag, Value(), min: 0, minInclusive: true) },
                "--duration" => options with { DurationSeconds = ParseDouble(flag, Value(), min: 0, minInclusive: false) },
                "--logger" => options with { Logger = ParseLogger(flag, Value()) },
                "--log-dir" => options with { LogDir = ParseNonEmpty(flag, Value()) },
                "--log-delay-ms" => options with { LogDelayMs = ParseLogDelay(flag, Value()) },
                "--silos" => options with { Silos = ParseInt(flag, Value(), min: 1) },
                "--cluster" => options with { Cluster = ParseEndpoints(flag, Value()) },
                "--json" => options with { Json = ParseNonEmpty(flag, Value()) },
                "--history" => options with { History = ParseNonEmpty(flag, Value()) },
                "--dump" => options with { Dump = ParseNonEmpty(flag, Value()) },
                "--seed" => options with { Seed = ParseInt(flag, Value(), min: int.MinValue) },
                "--warehouses" => options with { Warehouses = ParseInt(RequireTpcC(flag, options.Workload), Value(), min: 1) },
                _ => throw new UsageException($"Unknown option {flag}. Run with --help for the list."),
            };
        }

        // nt has nothing to check in listappend, so its default leaves it out.
        var modesGiven = args.Any(a => a == "--modes" || a.StartsWith("--modes=", StringComparison.Ordinal));
        if (!modesGiven && options.Workload == "listappend")
        {
            options = options with { Modes = ListAppendDefaultModes };
        }

        // TPC-C has no plain-call version, and hybrid is its point.
        if (!modesGiven && options.Workload == TpcC)
        {
            options = options with { Modes = TpcCModes };
        }

        Validate(options);
        return new ParseResult(false, options);
    }

    private static bool IsHelp(string arg) => arg is "--help" or "-h" or "-?" or "help";

    // "--seed -5" must read -5 as the value, not as a flag.
    private static bool LooksNumeric(string arg) => double.TryParse(arg, NumberStyles.Float, CultureInfo.InvariantCulture, out _);

    private static string ParseWorkload(string arg)
    {
        if (Workloads.Contains(arg))
        {
            return arg;
        }

        if (arg.StartsWith('-'))
        {
            throw new UsageException($"The first argument must be the workload (smallbank, listappend, tpcc) or check, not the option {arg}.");
        }

        throw new UsageException($"Unknown workload '{arg}'; known: smallbank, listappend, tpcc, and the check subcommand.");
    }

    private static string RequireTpcC(string flag, string workload) =>
        workload == TpcC ? flag : throw new UsageException($"{flag} is only for the tpcc workload, not {workload}.");

    private static List<string> ParseModes(string flag, string value)
    {
        var modes = new List<string>();
        foreach (var raw in value.Split(','))
        {
            var mode = raw.Trim();
            if (mode.Length == 0)
            {
                throw new UsageException($"{flag} has an empty entry in '{value}'.");
            }

            if (ModeNames.Planned.Contains(mode))
            {
                throw new UsageException($"{flag}: mode '{mode}' is not implemented yet; supported modes: {string.Join(", ", ModeNames.Supported)}.");
            }

            if (!ModeNames.Supported.Contains(mode))
            {
                throw new UsageException($"{flag}: unknown mode '{mode}'; supported: {string.Join(", ", ModeNames.Supported)} (planned: {string.Join(", ", ModeNames.Planned)}).");
            }

            if (modes.Contains(mode))
            {
                throw new UsageException($"{flag}: mode '{mode}' is listed twice.");
            }

            modes.Add(mode);
        }

        return modes;
    }

    private static Distribution ParseDistribution(string flag, string value) => value switch
    {
        "uniform" => Distribution.Uniform,
        "hotspot" => Distribution.Hotspot,
        "zipf" => Distribution.Zipf,
        _ => throw new UsageException($"{flag}: unknown distribution '{value}'; use uniform, hotspot or zipf."),
    };

    private static LoggerKind ParseLogger(string flag, string value) => value switch
    {
        "none" => LoggerKind.None,
        "memory" => LoggerKind.Memory,
        "file" => LoggerKind.File,
        "azure-table" => throw new UsageException($"{flag}: logger '{value}' is not implemented yet; use none, memory or file."),
        _ => throw new UsageException($"{flag}: unknown logger '{value}'; use none, memory or file."),
    };

    private static int ParseLogDelay(string flag, string value)
    {
        var delay = ParseInt(flag, value, min: 0);
        if (delay > 10_000)
        {
            throw new UsageException($"{flag}: at most 10000 ms, got {delay}.");
        }

        return delay;
    }

    private static string[] ParseEndpoints(string flag, string value)
    {
        var endpoints = value.Split(',', StringSplitOptions.TrimEntries | StringSplitOptions.RemoveEmptyEntries);
        if (endpoints.Length == 0)
        {
            throw new UsageException($"{flag}: give at least one gateway as host:port.");
        }

        foreach (var endpoint in endpoints)
        {
            _ = Endpoint(flag, endpoint);
        }

        return endpoints;
    }

    /// <summary>Parses <c>host:port</c> (host a name or an IP address); throws naming the flag.</summary>
    public static System.Net.IPEndPoint Endpoint(string flag, string endpoint)
    {
        var colon = endpoint.LastIndexOf(':');
        if (colon <= 0 || !int.TryParse(endpoint[(colon + 1)..], NumberStyles.None, CultureInfo.InvariantCulture, out var port) || port is < 1 or > 65535)
        {
            throw new UsageException($"{flag}: '{endpoint}' is not host:port with a port from 1 to 65535.");
        }

        var host = endpoint[..colon];
        if (System.Net.IPAddress.TryParse(host, out var address))
        {
            return new System.Net.IPEndPoint(address, port);
        }

        try
        {
            var addresses = System.Net.Dns.GetHostAddresses(host);
            return new System.Net.IPEndPoint(addresses.First(a => a.AddressFamily == System.Net.Sockets.AddressFamily.InterNetwork), port);
        }
        catch (Exception e) when (e is System.Net.Sockets.SocketException or InvalidOperationException or ArgumentException)
        {
            throw new UsageException($"{flag}: host '{host}' in '{endpoint}' does not resolve to an IPv4 address.");
        }
    }

    private static void RequireAtLeast(string flag, int value, int min)
    {
        if (value < min)
        {
            throw new UsageException($"{flag}: must be at least {min}, got {value}.");
        }
    }

    private static int ParseInt(string flag, string value, int min)
    {
        if (!int.TryParse(value, NumberStyles.AllowLeadingSign, CultureInfo.InvariantCulture, out var parsed))
        {
            throw new UsageException($"{flag}: expected an integer, got '{value}'.");
        }

        if (parsed < min)
        {
            throw new UsageException($"{flag}: must be at least {min}, got {parsed}.");
        }

        return parsed;
    }

    private static double ParseDouble(string flag, string value, double min, bool minInclusive)
    {
        if (!double.TryParse(value, NumberStyles.Float, CultureInfo.InvariantCulture, out var parsed) || !double.IsFinite(parsed))
        {
            throw new UsageException($"{flag}: expected a number, got '{value}'.");
        }

        if (minInclusive ? parsed < min : parsed <= min)
        {
            throw new UsageException($"{flag}: must be {(minInclusive ? "at least" : "greater than")} {min.ToString(CultureInfo.InvariantCulture)}, got {value}.");
        }

        return parsed;
    }

    private static bool ParseBool(string flag, string value) => value switch
    {
        "true" => true,
        "false" => false,
        _ => throw new UsageException($"{flag}: expected true or false, got '{value}'."),
    };

    private static string ParseNonEmpty(string flag, string value) =>
        string.IsNullOrWhiteSpace(value) ? throw new UsageException($"{flag} needs a non-empty value.") : value;

    /// <summary>
    /// Checks a whole set of options, also ones built in code rather than parsed (tests). Parsing
    /// already checked each flag on its own; this adds the checks that combine flags.
    /// </summary>
    /// <exception cref="UsageException">The options cannot be run; the message names the flag.</exception>
    public static void Validate(LoadGenOptions options)
    {
        ArgumentNullException.ThrowIfNull(options);
        ParseWorkload(options.Workload);
        if (options.Modes.Count == 0)
        {
            throw new UsageException("--modes lists no mode.");
        }

        ParseModes("--modes", string.Join(',', options.Modes));
        RequireAtLeast("--silos", options.Silos, 1);
        if (options.Silos > MaxSilos)
        {
            throw new UsageException($"--silos: at most {MaxSilos} silos run in one process (was {options.Silos}).");
        }

        if (options.Cluster is { } cluster)
        {
            if (options.Silos != 1)
            {
                throw new UsageException("--silos and --cluster exclude each other: --silos starts silos in this process, --cluster drives running ones.");
            }

            ParseEndpoints("--cluster", string.Join(',', cluster));
        }

        if (options.Workload == "listappend")
        {
            if (options.Modes.Contains(ModeNames.Nt))
            {
                throw new UsageException($"--modes: mode '{ModeNames.Nt}' is not meaningful for listappend (plain calls have no tid and no atomicity to check); use {ModeNames.Pact}, {ModeNames.Act} and/or {ModeNames.Hybrid}.");
            }
        }
        else
        {
            if (options.Workload == TpcC && options.Modes.FirstOrDefault(m => !TpcCModes.Contains(m)) is { } unsupported)
            {
                throw new UsageException($"--modes: tpcc does not run in mode '{unsupported}'; use {string.Join(", ", TpcCModes)}.");
            }

            if (options.History is not null)
            {
                throw new UsageException($"--history is only for the listappend workload, not {options.Workload}.");
            }

            if (options.Dump is not null)
            {
                throw new UsageException($"--dump is only for the listappend workload, not {options.Workload}.");
            }
        }

        if (options.Workload == TpcC)
        {
            RequireAtLeast("--warehouses", options.Warehouses, 1);
            if (options.Dist != Distribution.Uniform)
            {
                throw new UsageException("--dist: tpcc draws its inputs as TPC-C §2 specifies (NURand); the keys only seed that draw, so only uniform applies.");
            }
        }
        else if (options.NewOrderOnly)
        {
            throw new UsageException($"--neworder-only is only for the tpcc workload, not {options.Workload}.");
        }

        RequireAtLeast("--txn-size", options.TxnSize, 1);
        RequireAtLeast("--actors", options.Actors, 1);
        RequireAtLeast("--pipeline", options.Pipeline, 1);
        RequireAtLeast("--clients", options.Clients, 1);
        if (!Enum.IsDefined(options.Dist))
        {
            throw new UsageException($"--dist: unknown distribution {(int)options.Dist}.");
        }

        if (!Enum.IsDefined(options.Logger))
        {
            throw new UsageException($"--logger: unknown logger {(int)options.Logger}.");
        }

        if (!(options.Zipf > 0) || !double.IsFinite(options.Zipf))
        {
            throw new UsageException($"--zipf: must be a finite number greater than 0, got {options.Zipf.ToString(CultureInfo.InvariantCulture)}.");
        }

        if (!(options.WarmupSeconds >= 0) || !(options.DurationSeconds > 0))
        {
            throw new UsageException("--warmup must be at least 0 and --duration greater than 0.");
        }

        ParseLogDelay("--log-delay-ms", options.LogDelayMs.ToString(CultureInfo.InvariantCulture));

        if (options.PactPercent is < 0 or > 100)
        {
            throw new UsageException($"--pact-percent: must be between 0 and 100, got {options.PactPercent}.");
        }

        if (options.TxnSize > options.Actors)
        {
            throw new UsageException($"--txn-size {options.TxnSize} needs at least that many distinct actors, but --actors is {options.Actors}.");
        }

        // The loops are plain tasks; past this the measurement is of the thread pool, not of Snapper.
        const long maxLoops = 100_000;
        if ((long)options.Clients * options.Pipeline > maxLoops)
        {
            throw new UsageException($"--clients × --pipeline is {(long)options.Clients * options.Pipeline}; at most {maxLoops} transactions can be in flight.");
        }

        // Per-second epochs are kept in arrays sized by the duration.
        const double maxDuration = 24 * 3600;
        if (options.DurationSeconds > maxDuration || options.WarmupSeconds > maxDuration)
        {
            throw new UsageException($"--duration and --warmup are limited to {maxDuration} seconds.");
        }
    }
}

using System.CommandLine;
using System.CommandLine.Parsing;
using System.Globalization;
using Snapper.LoadGen.Nemesis;

namespace Snapper.LoadGen.Options;

/// <summary>
/// LoadGen's command line on System.CommandLine: a subcommand per workload, <c>check</c>, <c>idle</c>,
/// <c>figures</c> and <c>salvage</c> (whose flags <see cref="SalvageCommand"/> defines). Every flag is
/// defined once, with its type, default, allowed values and check, so <c>--help</c>, parsing and shell
/// completion cannot disagree. Checks that span flags live in <see cref="LoadGenValidation"/>, which options built in code (tests) go through too.
/// </summary>
public static class LoadGenCommandLine
{
    /// <summary>The workloads, each a subcommand.</summary>
    public const string SmallBank = "smallbank", ListAppend = "listappend", TpcC = "tpcc", Nested = "nested";

    /// <summary>The subcommands that are not workloads.</summary>
    public const string Check = "check", Idle = "idle", Figures = "figures";

    private static readonly Option<int> PactPercent = new("--pact-percent")
    {
        Description = "hybrid: percentage of transactions issued as PACTs, the rest as ACTs (0-100).",
        HelpName = "percent",
        DefaultValueFactory = _ => 90,
        Validators = { r => Range(r, 0, 100) },
    };

    private static readonly Option<string> Dist = OneOf("--dist", "uniform", "How actors are chosen (hotspot: 1% of actors get 75% of accesses).", "uniform", "hotspot", "zipf");

    private static readonly Option<double> Zipf = new("--zipf")
    {
        Description = "Zipf exponent for --dist zipf, greater than 0.",
        HelpName = "s",
        DefaultValueFactory = _ => 1.0,
        Validators = { r => Above(r, 0) },
    };

    private static readonly Option<int> TxnSize = Count("--txn-size", 4, "Actors per transaction, all distinct; smallbank: 1 debited + N-1 recipients.");

    private static readonly Option<int> Actors = Count("--actors", 10_000, "Actors per mode (tpcc: only seeds each transaction's input draw).");

    // nested: the actors, the keys each tree draws its nodes from, and the transactions in flight of
    // an application whose call trees meet often (a dozen actors, 16 in flight), and 5% of trees failing.
    private static readonly Option<int> NestedActors = Count("--actors", 12, "Actors per mode.");

    private static readonly Option<int> NestedTxnSize = Count("--txn-size", 4, "Distinct actors each call tree's nodes are drawn from (a tree may reach one several times).");

    private static readonly Option<int> NestedPipeline = Count("--pipeline", 8, "Transactions each client keeps in flight.");

    private static readonly Option<int> NestedUserAborts = new("--user-aborts")
    {
        Description = "Percentage of call trees with one node that throws after its calls (a user abort; 0-100); the checker verifies none of their appends is ever seen.",
        HelpName = "percent",
        DefaultValueFactory = _ => 5,
        Validators = { r => Range(r, 0, 100) },
    };

    private static readonly Option<int> FiguresActors = Count("--actors", 10_000, "SmallBank accounts per mode in every experiment.");

    private static readonly Option<int> Pipeline = Count("--pipeline", 64, "Transactions each client keeps in flight.");

    private static readonly Option<int> Clients = Count("--clients", 2, "Clients, each with its own seeds.");

    private static readonly Option<double> Warmup = new("--warmup")
    {
        Description = "Seconds of load before measuring, excluded from every statistic.",
        DefaultValueFactory = _ => 5,
        HelpName = "seconds",
        Validators = { r => AtLeast(r, 0) },
    };

    private static readonly Option<int> JitSettle = new("--jit-settle")
    {
        Description = "Most seconds the warm-up goes on past --warmup, a second at a time, while the JIT still compiles (a process's first seconds under load): a mode measured then measures the JIT. 0: the warm-up is exactly --warmup (so it always is with --warmup 0).",
        DefaultValueFactory = _ => 60,
        HelpName = "seconds",
        Validators = { r => Range(r, 0, 600) },
    };

    private static readonly Option<double> Duration = Seconds("--duration", 10, "Seconds measured per mode.");

    /// <summary>Azurite's development storage on 127.0.0.1, the default <c>--connection</c>.</summary>
    public const string DevelopmentStorage = "UseDevelopmentStorage=true";

    private static readonly Option<string> Logger = OneOf("--logger", "memory", "Where the embedded silos log: none (nothing survives a crash), memory, file (fsynced segments in --log-dir), or azure-table (a table of this run's own at --connection, deleted afterwards).", "none", "memory", "file", "azure-table");

    private static readonly Option<string> Connection = new("--connection")
    {
        Description = "Azure storage connection string for --logger azure-table; parsed at once and reached before the run.",
        DefaultValueFactory = _ => DevelopmentStorage,
        HelpName = "string",
        Validators = { r => OptionChecks.Text(r, text => { if (ServiceProbes.AzureConnectionProblem(text) is { } problem) throw new FormatException(problem); }) },
    };

    private static readonly Option<bool> Verbose = new("--verbose")
    {
        Description = "A failure to start or connect prints the whole exception and the runtime's log lines, not one line.",
    };

    private static readonly Option<DirectoryInfo?> LogDir = new("--log-dir")
    {
        Description = "Directory of the file logger, created if missing and probed with an fsynced write before the run (default: a temporary folder, deleted afterwards).",
        HelpName = "dir",
    };

    private static readonly Option<int> LogDelayMs = new("--log-delay-ms")
    {
        Description = "Milliseconds added to every log write, standing in for cloud storage latency (0-10000).",
        HelpName = "ms",
        DefaultValueFactory = _ => 0,
        Validators = { r => Range(r, 0, 10_000) },
    };

    private static readonly Option<int?> OrleansLockTimeout = new("--orleans-lock-timeout")
    {
        Description = "orleans-txn modes: milliseconds of Orleans' TransactionalStateOptions.LockTimeout and LockAcquireTimeout in the embedded silos (1-600000; default: Orleans' own, 8 s and 10 s).",
        HelpName = "ms",
        Validators = { r => Range(r, 1, 600_000) },
    };

    private static readonly Option<string> Promote = OneOf("--promote", "on", "An ACT attempt that aborts for a concurrency reason runs again as a PACT over the actors it called (ActOptions.Promote); off: retries stay ACTs.", "on", "off");

    private static readonly Option<int> CheckpointInterval = new("--checkpoint-interval")
    {
        Description = "Seconds between checkpoints of the embedded silos' logs (0: none; 1-86400).",
        HelpName = "seconds",
        DefaultValueFactory = _ => (int)Snapper.Configuration.SnapperOptions.DefaultCheckpointInterval.TotalSeconds,
        Validators = { r => Range(r, 0, 86_400) },
    };

    private static readonly Option<int> Silos = new("--silos")
    {
        Description = $"Silos of the embedded cluster, all in this process on loopback (1-{LoadGenValidation.MaxSilos}).",
        HelpName = "n",
        DefaultValueFactory = _ => 1,
        Validators = { r => Range(r, 1, LoadGenValidation.MaxSilos) },
    };

    private static readonly Option<string?> Cluster = new("--cluster")
    {
        Description = "host:port[,host:port...]: gateways of running SiloHosts to drive as an Orleans client instead of embedded silos (the silos' own --logger applies).",
        HelpName = "gateways",
        Validators = { r => OptionChecks.Text(r, text => LoadGenValidation.Endpoints(text)) },
    };

    private static readonly Option<int> ResponseTimeout = new("--response-timeout")
    {
        Description = $"With --cluster: seconds the Orleans client waits for an answer before a call fails (1-600); a transaction sent through a gateway that died ends then, recorded as an unknown outcome.",
        HelpName = "seconds",
        DefaultValueFactory = _ => LoadGenOptions.DefaultResponseTimeoutSeconds,
        Validators = { r => Range(r, 1, 600) },
    };

    private static readonly Option<string?> Nemesis = new("--nemesis")
    {
        Description = "Faults during each mode's measured window, a comma list of: deactivate and migrate (random actors of the workload, --nemesis-rate a second, through Orleans' grain management extension; also against --cluster on loopback), delay (5% of grain calls wait 5-300 ms before they are sent) and timeout (Orleans' response timeout lowered to 2 s for the run, 0.5% of answers held past it); the last two need the embedded silos.",
        HelpName = "list",
        Validators = { r => OptionChecks.Text(r, text => NemesisFaults.Parse(text)) },
    };

    private static readonly Option<double> NemesisRate = new("--nemesis-rate")
    {
        Description = $"Deactivation and migration requests a second of --nemesis (alternating when both are listed), greater than 0, at most {NemesisFaults.MaxRate}.",
        HelpName = "n",
        DefaultValueFactory = _ => NemesisFaults.DefaultRate,
        Validators = { r => Above(r, 0) },
    };

    private static readonly Option<FileInfo?> Json = new("--json")
    {
        Description = "Also write the results as JSON to this file.",
        HelpName = "file",
    };

    private static readonly Option<bool> Verify = new("--verify")
    {
        Description = "smallbank: after each mode, check the touched accounts still hold all the money; listappend: check the history against the lists (Elle-style); tpcc: check TPC-C consistency conditions 1-4.",
    };

    private static readonly Option<int> Seed = new("--seed")
    {
        Description = "Seed of every actor choice: same seed, same actor sequences.",
        HelpName = "n",
        DefaultValueFactory = _ => 42,
    };

    private static readonly Option<FileInfo?> History = new("--history")
    {
        Description = "Write one JSON line per finished transaction to this file (for check).",
        HelpName = "file",
    };

    private static readonly Option<FileInfo?> Dump = new("--dump")
    {
        Description = "After the run, read every actor's list and write them as JSON to this file (for check).",
        HelpName = "file",
    };

    private static readonly Option<int> UserAborts = new("--user-aborts")
    {
        Description = "Percentage of transactions that append everywhere, then roll back with a user abort (0-100); the checker verifies none of their appends is ever seen.",
        HelpName = "percent",
        DefaultValueFactory = _ => 0,
        Validators = { r => Range(r, 0, 100) },
    };

    private static readonly Option<bool> AfterCommit = new("--after-commit")
    {
        Description = "Each append registers an after-commit action, taken by the silos' handler once its transaction committed (SiloHost --after-commit-journal notes them for check --journal).",
    };

    private static readonly Option<string> SmallBankAfterCommit = OneOf(
        "--after-commit",
        "off",
        "Each Snapper transfer registers an after-commit action, a notice from the payer that the silos' handler takes once it committed: on; both runs every mode twice, without and then with it, the second reported as MODE+after-commit.",
        "off",
        "on",
        "both");

    private static readonly Option<int> Warehouses = Count("--warehouses", 2, "Warehouses of each mode's database.");

    private static readonly Option<int> PactAttempts = Count("--pact-attempts", 1, "Times RunPact runs a PACT that an earlier batch's abort cascaded into (1-1000).");

    private static readonly Option<int> ActAttempts = Count("--act-attempts", LoadGenOptions.SmallBankActAttempts, "Times RunAct runs an ACT (act, act-elr, hybrid's ACTs) that aborts for a concurrency reason, keeping its first attempt's age for wait-die (1: no retries).");

    private static readonly Option<bool> NewOrderOnly = new("--neworder-only")
    {
        Description = "Issue only NewOrder instead of TPC-C's standard mix.",
    };

    private static readonly Option<FileInfo[]> CheckHistory = new("--history")
    {
        Description = "The histories listappend runs wrote with --history, checked as one (several runs against one cluster, say across restarts).",
        HelpName = "file...",
        Required = true,
        AllowMultipleArgumentsPerToken = true,
    };

    private static readonly Option<FileInfo> CheckDump = new("--dump")
    {
        Description = "The list dump the same run wrote with --dump.",
        HelpName = "file",
        Required = true,
    };

    private static readonly Option<FileInfo?> CheckJournal = new("--journal")
    {
        Description = "Also check the after-commit journal the silos kept (SiloHost --after-commit-journal) for runs with --after-commit: every committed transaction's actions taken, none of an aborted one's, each id once.",
        HelpName = "file",
    };

    private static readonly Option<double> IdleDuration = WithAtMost(Seconds("--duration", 10, "Seconds the idle silo's CPU use is measured."), LoadGenValidation.MaxSeconds);

    private static readonly Option<DirectoryInfo> FiguresOut = new("--out")
    {
        Description = "Folder the figures are written to (created if missing): figures.json, figures.csv, a PNG chart per experiment, summary.md.",
        DefaultValueFactory = _ => new DirectoryInfo(Path.Combine("artifacts", "figures")),
        HelpName = "dir",
    };

    private static readonly Option<bool> FiguresReplot = new("--replot")
    {
        Description = "Only redraw the charts and summary from the figures.json an earlier run left in --out (the other flags must be the ones it ran with).",
    };

    private static readonly Option<double> FiguresWarmup = Seconds("--warmup", 2, "Seconds of load before each point is measured.");

    private static readonly Option<double> FiguresDuration = Seconds("--duration", 5, "Seconds measured per system and point.");

    /// <summary>The root command with every subcommand and flag.</summary>
    public static RootCommand Create()
    {
        return new RootCommand("Snapper's load generator: runs a workload in several transaction modes, one after another on one cluster, each on its own keys, and reports throughput, aborts and latency.")
        {
            Workload(SmallBank, "SmallBank MultiTransfer: one account pays --txn-size - 1 others (orleans-txn: the same on Orleans' own transactions).", ModeNames.Default, ModeNames.Supported, ActAttempts, PactAttempts, OrleansLockTimeout, SmallBankAfterCommit),
            Workload(ListAppend, "Each transaction appends its tid to the lists of --txn-size actors; --verify or check tests the history Elle-style.", [ModeNames.Pact, ModeNames.Act], [ModeNames.Pact, ModeNames.Act, ModeNames.ActElr, ModeNames.Hybrid], History, Dump, UserAborts, AfterCommit),
            Workload(Nested, "Each transaction runs a random call tree (up to 3 levels, 3 calls a node, nested calls one after another or in parallel, actors coming back in their own tree, nodes that throw or swallow a failure), appending once on every actor it reaches; --verify or check tests the history as listappend's.", [ModeNames.Pact, ModeNames.Act], [ModeNames.Pact, ModeNames.Act, ModeNames.ActElr, ModeNames.Hybrid], History, Dump, NestedUserAborts, NestedActors, NestedTxnSize, NestedPipeline),
            Workload(TpcC, "TPC-C's five transactions at the standard mix on a database loaded per mode; one row per transaction type.", [ModeNames.Pact, ModeNames.Act, ModeNames.Hybrid], [ModeNames.Pact, ModeNames.Act, ModeNames.Hybrid], Warehouses, NewOrderOnly, PactAttempts),
            new Command(Check, "Check a listappend history against its list dump: lost, duplicated, misplaced or aborted appends and cycles. Exit 0 consistent, 1 violations, 2 unreadable files.")
            {
                CheckHistory, CheckDump, CheckJournal,
            },
            new Command(Idle, "Start an embedded silo, run one PACT and one ACT, then measure the process's CPU use while nothing runs.")
            {
                IdleDuration,
            },
            new Command(Figures, "Run the Snapper paper's experiments on SmallBank against Orleans' own transactions (size, skew, hybrid mix, latency, concurrency) and write their data, charts and a summary.")
            {
                FiguresOut, FiguresActors, FiguresWarmup, FiguresDuration, FiguresReplot,
            },
            SalvageCommand.Definition(),
            ScaleCommand.Definition(),
        };
    }

    /// <summary>The options of a parsed workload subcommand (without errors).</summary>
    public static LoadGenOptions Options(ParseResult parsed)
    {
        ArgumentNullException.ThrowIfNull(parsed);
        var command = parsed.CommandResult.Command;
        var modes = command.Options.OfType<Option<string>>().Single(o => o.Name == "--modes");
        var options = new LoadGenOptions
        {
            Workload = command.Name,
            Modes = SplitModes(parsed.GetValue(modes)!),
            PactPercent = parsed.GetValue(PactPercent),
            Dist = Enum.Parse<Distribution>(parsed.GetValue(Dist)!, ignoreCase: true),
            Zipf = parsed.GetValue(Zipf),
            TxnSize = parsed.GetValue(Own(command, TxnSize)),
            Actors = parsed.GetValue(Own(command, Actors)),
            Pipeline = parsed.GetValue(Own(command, Pipeline)),
            Clients = parsed.GetValue(Clients),
            WarmupSeconds = parsed.GetValue(Warmup),
            JitSettleSeconds = parsed.GetValue(JitSettle),
            DurationSeconds = parsed.GetValue(Duration),
            Logger = Enum.Parse<LoggerKind>(parsed.GetValue(Logger)!.Replace("-", "", StringComparison.Ordinal), ignoreCase: true),
            Connection = parsed.GetValue(Connection)!,
            LogDir = parsed.GetValue(LogDir)?.FullName,
            LogDelayMs = parsed.GetValue(LogDelayMs),
            CheckpointIntervalSeconds = parsed.GetValue(CheckpointInterval),
            Silos = parsed.GetValue(Silos),
            Cluster = parsed.GetValue(Cluster) is { } cluster ? SplitList(cluster) : null,
            ResponseTimeoutSeconds = parsed.GetValue(ResponseTimeout),
            Json = parsed.GetValue(Json)?.FullName,
            Verify = parsed.GetValue(Verify),
            Seed = parsed.GetValue(Seed),
            Nemesis = parsed.GetValue(Nemesis) is { } faults ? NemesisFaults.Parse(faults) : [],
            NemesisRate = parsed.GetValue(NemesisRate),
            Promote = parsed.GetValue(Promote) == "on",
            Verbose = parsed.GetValue(Verbose),
        };
        return command.Name switch
        {
            SmallBank => options with { ActAttempts = parsed.GetValue(ActAttempts), PactAttempts = parsed.GetValue(PactAttempts), OrleansLockTimeoutMs = parsed.GetValue(OrleansLockTimeout), AfterCommit = parsed.GetValue(SmallBankAfterCommit) == "on", AfterCommitCompared = parsed.GetValue(SmallBankAfterCommit) == "both" },
            ListAppend => options with { History = parsed.GetValue(History)?.FullName, Dump = parsed.GetValue(Dump)?.FullName, UserAborts = parsed.GetValue(Own(command, UserAborts)), AfterCommit = parsed.GetValue(AfterCommit) },
            Nested => options with { History = parsed.GetValue(History)?.FullName, Dump = parsed.GetValue(Dump)?.FullName, UserAborts = parsed.GetValue(Own(command, UserAborts)) },
            TpcC => options with { Warehouses = parsed.GetValue(Warehouses), NewOrderOnly = parsed.GetValue(NewOrderOnly), PactAttempts = parsed.GetValue(PactAttempts) },
            _ => options,
        };
    }

    /// <summary>The files of a parsed <c>check</c>.</summary>
    public static (FileInfo[] Histories, FileInfo Dump, FileInfo? Journal) CheckFiles(ParseResult parsed)
    {
        ArgumentNullException.ThrowIfNull(parsed);
        return (parsed.GetValue(CheckHistory)!, parsed.GetValue(CheckDump)!, parsed.GetValue(CheckJournal));
    }

    /// <summary>The measured seconds of a parsed <c>idle</c>.</summary>
    public static double IdleSeconds(ParseResult parsed)
    {
        ArgumentNullException.ThrowIfNull(parsed);
        return parsed.GetValue(IdleDuration);
    }

    /// <summary>The folder, actors, warm-up, duration and replot choice of a parsed <c>figures</c>.</summary>
    public static (string Folder, int Actors, double Warmup, double Duration, bool Replot) FiguresSettings(ParseResult parsed)
    {
        ArgumentNullException.ThrowIfNull(parsed);
        return (parsed.GetValue(FiguresOut)!.FullName, parsed.GetValue(FiguresActors), parsed.GetValue(FiguresWarmup), parsed.GetValue(FiguresDuration), parsed.GetValue(FiguresReplot));
    }

    /// <summary>Every flag of every subcommand, by subcommand (for the README and --help tests).</summary>
    public static IReadOnlyDictionary<string, IReadOnlyList<string>> Flags()
    {
        return Create().Subcommands.ToDictionary(
            c => c.Name,
            c => (IReadOnlyList<string>)[.. c.Options.Where(o => o.Name.StartsWith("--", StringComparison.Ordinal) && o.Name != "--help").Select(o => o.Name)]);
    }

    // A workload's own flags come after the shared ones; one named as a shared flag replaces it
    // (its own default and help), in the shared flag's place.
    private static Command Workload(string name, string description, IReadOnlyList<string> defaultModes, IReadOnlyList<string> allowedModes, params Option[] own)
    {
        var modes = new Option<string>("--modes")
        {
            Description = $"Comma list of modes, run in this order: {string.Join(", ", allowedModes)}.",
            DefaultValueFactory = _ => string.Join(',', defaultModes),
            HelpName = "list",
        };
        modes.CompletionSources.Add(allowedModes.ToArray());
        modes.Validators.Add(r => OptionChecks.Text(r, text => CheckModes(text, allowedModes, name)));
        Option[] shared =
        [
            modes, PactPercent, Dist, Zipf, TxnSize, Actors, Pipeline, Clients, Warmup, JitSettle, Duration,
            Logger, LogDir, Connection, LogDelayMs, CheckpointInterval, Silos, Cluster, ResponseTimeout, Nemesis, NemesisRate, Json, Verify, Seed, Promote, Verbose,
        ];
        var command = new Command(name, description);
        foreach (var option in shared)
        {
            command.Options.Add(own.FirstOrDefault(o => o.Name == option.Name) ?? option);
        }

        foreach (var option in own.Where(o => !shared.Any(s => s.Name == o.Name)))
        {
            command.Options.Add(option);
        }

        return command;
    }

    // The command's flag named as `shared`: its own where it has one.
    private static Option<T> Own<T>(Command command, Option<T> shared) => command.Options.OfType<Option<T>>().FirstOrDefault(o => o.Name == shared.Name) ?? shared;

    private static void CheckModes(string text, IReadOnlyList<string> allowed, string workload)
    {
        var seen = new HashSet<string>(StringComparer.Ordinal);
        foreach (var mode in SplitModes(text))
        {
            if (!allowed.Contains(mode))
            {
                throw new FormatException($"{workload} has no mode '{mode}'; use {string.Join(", ", allowed)}");
            }

            if (!seen.Add(mode))
            {
                throw new FormatException($"mode '{mode}' is listed twice");
            }
        }
    }

    private static string[] SplitModes(string text)
    {
        var modes = text.Split(',', StringSplitOptions.TrimEntries);
        return modes.Any(m => m.Length == 0) ? throw new FormatException($"'{text}' has an empty entry") : modes;
    }

    private static string[] SplitList(string text) => text.Split(',', StringSplitOptions.TrimEntries | StringSplitOptions.RemoveEmptyEntries);

    // A flag taking one of a few words: shown in help, completed in shells, refused naming the flag.
    private static Option<string> OneOf(string name, string defaultValue, string description, params string[] values)
    {
        var option = new Option<string>(name)
        {
            Description = description,
            DefaultValueFactory = _ => defaultValue,
            HelpName = string.Join('|', values),
        };
        option.CompletionSources.Add(values);
        option.Validators.Add(r =>
        {
            if (r.GetValueOrDefault<string>() is { } value && !values.Contains(value, StringComparer.Ordinal))
            {
                r.AddError($"{name}: '{value}' is not one of {string.Join(", ", values)}.");
            }
        });
        return option;
    }

    private static Option<int> Count(string name, int defaultValue, string description) => new(name)
    {
        Description = description,
        HelpName = "n",
        DefaultValueFactory = _ => defaultValue,
        Validators = { r => Range(r, 1, int.MaxValue) },
    };

    private static Option<double> Seconds(string name, double defaultValue, string description) => new(name)
    {
        Description = description,
        DefaultValueFactory = _ => defaultValue,
        HelpName = "seconds",
        Validators = { r => Above(r, 0) },
    };

    private static void Range(OptionResult result, int min, int max)
    {
        if (Value<int>(result) is { } value && (value < min || value > max))
        {
            result.AddError(max == int.MaxValue
                ? $"{result.Option.Name} must be at least {min} (was {value})."
                : $"{result.Option.Name} must be from {min} to {max} (was {value}).");
        }
    }

    private static void Above(OptionResult result, double min)
    {
        if (Value<double>(result) is { } value && (!(value > min) || !double.IsFinite(value)))
        {
            result.AddError(string.Create(CultureInfo.InvariantCulture, $"{result.Option.Name} must be a number greater than {min} (was {value})."));
        }
    }

    // idle has no check of its options as a whole (the workloads' LoadGenValidation, figures' own):
    // its --duration is bounded where it is parsed.
    private static Option<double> WithAtMost(Option<double> option, double max)
    {
        option.Validators.Add(r => AtMost(r, max));
        return option;
    }

    // A span past it overflows the timers the run would wait on, at its end.
    private static void AtMost(OptionResult result, double max)
    {
        if (Value<double>(result) is { } value && value > max && double.IsFinite(value))
        {
            result.AddError(string.Create(CultureInfo.InvariantCulture, $"{result.Option.Name} must be at most {max} seconds (was {value})."));
        }
    }

    private static void AtLeast(OptionResult result, double min)
    {
        if (Value<double>(result) is { } value && (!(value >= min) || !double.IsFinite(value)))
        {
            result.AddError(string.Create(CultureInfo.InvariantCulture, $"{result.Option.Name} must be a number of at least {min} (was {value})."));
        }
    }

    // The value, or null when it did not convert: System.CommandLine reports that error itself,
    // naming the flag, and still runs the validators.
    private static T? Value<T>(OptionResult result)
        where T : struct
    {
        try
        {
            return result.GetValueOrDefault<T>();
        }
        catch (InvalidOperationException)
        {
            return null;
        }
    }
}

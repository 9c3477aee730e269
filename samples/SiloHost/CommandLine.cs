using System.CommandLine;
using System.CommandLine.Parsing;
using Snapper.LoadGen.Options;
using System.Net;
using System.Net.Sockets;

namespace SiloHost;

/// <summary>SiloHost's flags, each defined once with its type, default, allowed values and check, so help and parsing agree.</summary>
public static class CommandLine
{
    public static readonly Option<int> SiloPort = Port("--silo-port", 11111, "Port other silos reach this one on.");

    public static readonly Option<int> GatewayPort = Port("--gateway-port", 30000, "Port clients (LoadGen --cluster) connect to.");

    public static readonly Option<string?> Primary = new("--primary")
    {
        Description = "host:port (silo port) of the primary silo of a development cluster to join. Absent: this silo is the primary.",
        Validators = { result => OptionChecks.Text(result, text => _ = ParseEndpoint(text)) },
    };

    public static readonly Option<string> Clustering = OneOf(
        new Option<string>("--clustering")
        {
            Description = "How silos find each other: dev (a development cluster around --primary) or redis (membership kept in the Redis server at --redis).",
            DefaultValueFactory = _ => "dev",
        },
        "dev",
        "redis");

    public static readonly Option<string?> Redis = new("--redis")
    {
        Description = "host:port of the Redis server that keeps the cluster's membership (--clustering redis).",
        Validators = { result => OptionChecks.Text(result, text => { if (text.LastIndexOf(':') is var colon && (colon <= 0 || !int.TryParse(text.AsSpan(colon + 1), out var port) || port is < 1 or > 65535)) throw new FormatException($"'{text}' is not host:port with a port from 1 to 65535"); }) },
    };

    public static readonly Option<string> Advertise = new("--advertise")
    {
        Description = "The address other silos and clients reach this silo at: an IP address, or a host name resolved at start-up (in a container, its service name). Anything but loopback makes the silo listen on every interface.",
        DefaultValueFactory = _ => "127.0.0.1",
        Validators = { result => OptionChecks.Text(result, text => _ = ResolveAddress(text)) },
    };

    public static readonly Option<string?> Name = new("--name")
    {
        Description = "The silo's name, unique in the cluster; it names the silo's logs (snapper-{name}-{n}), so silos sharing a --log-dir need different names. Default: silo-{silo-port}.",
        Validators = { result => OptionChecks.Text(result, text => { if (text.Length == 0 || text.Any(c => !char.IsAsciiLetterOrDigit(c) && c is not '-' and not '_' and not '.')) throw new FormatException($"'{text}' must be letters, digits, '-', '_' or '.'"); }) },
    };

    public static readonly Option<string> Logger = OneOf(
        new Option<string>("--logger")
        {
            Description = "Where the silo's Snapper loggers persist records: none (nothing survives a crash), memory, file (--log-dir), or azure-table (--connection, table --table).",
            DefaultValueFactory = _ => "memory",
        },
        "none",
        "memory",
        "file",
        "azure-table");

    public static readonly Option<string> Connection = new("--connection")
    {
        Description = "Azure storage connection string for --logger azure-table (default: Azurite's development storage on 127.0.0.1).",
        DefaultValueFactory = _ => "UseDevelopmentStorage=true",
    };

    public static readonly Option<string> Table = new("--table")
    {
        Description = "The table --logger azure-table keeps the logs in; silos sharing it write their own partitions, and a restart recovers from all of them.",
        DefaultValueFactory = _ => "snapperlog",
    };

    public static readonly Option<DirectoryInfo?> LogDir = new("--log-dir")
    {
        Description = "Directory of the file logger's segment files; the silos of a cluster may share one (each writes its own logs).",
    };

    public static readonly Option<int> LogDelayMs = new("--log-delay-ms")
    {
        Description = "Milliseconds added to every log write, standing in for cloud storage latency (0 to 10000).",
        DefaultValueFactory = _ => 0,
        Validators = { result => Range(result, 0, 10_000) },
    };

    public static readonly Option<int> CheckpointInterval = new("--checkpoint-interval")
    {
        Description = "Seconds between checkpoints of the logs, after which older records are truncated (0: none; 1 to 86400).",
        DefaultValueFactory = _ => (int)Snapper.Configuration.SnapperOptions.DefaultCheckpointInterval.TotalSeconds,
        Validators = { result => Range(result, 0, 86_400) },
    };

    public static readonly Option<int?> OrleansLockTimeout = new("--orleans-lock-timeout")
    {
        Description = "Milliseconds of Orleans' TransactionalStateOptions.LockTimeout and LockAcquireTimeout for LoadGen's orleans-txn modes (1 to 600000; default: Orleans' own, 8 s and 10 s).",
        Validators = { result => Range(result, 1, 600_000) },
    };

    public static readonly Option<string> MembershipTimeouts = OneOf(
        new Option<string>("--membership-timeouts")
        {
            Description = "Orleans' membership timing: orleans (its own: a silo that stops answering is declared dead in about 15 s, the table read every 60 s) or fast (a test cluster on one machine: probes time out after 1 s, votes expire after 10 s, the table is read every 2 s, so a dead or paused silo is declared dead, and one that wakes up learns it, within seconds). Every silo of a cluster should take the same.",
            DefaultValueFactory = _ => "orleans",
        },
        "orleans",
        "fast");

    public static readonly Option<FileInfo?> AfterCommitJournal = new("--after-commit-journal")
    {
        Description = "File where the list-append sample's after-commit handler notes each action it takes, fsynced, one line each (repeats of an id dropped and noted as such); LoadGen check --journal reads it. Without it the handler keeps its ids in memory.",
        HelpName = "file",
    };

    public static readonly Option<bool> Verbose = new("--verbose")
    {
        Description = "Log exceptions whole, and on a failed start every log line instead of one error line.",
    };

    /// <summary>The root command, with every flag.</summary>
    public static RootCommand Create()
    {
        var root = new RootCommand("A standalone Orleans silo running Snapper and the samples' actors (SmallBank, list-append, TPC-C).")
        {
            SiloPort, GatewayPort, Primary, Clustering, Redis, Advertise, Name, Logger, LogDir, Connection, Table, LogDelayMs, CheckpointInterval, OrleansLockTimeout, MembershipTimeouts, AfterCommitJournal, Verbose,
        };
        return root;
    }

    /// <summary>The checks that span flags, on a parse without errors (defaults applied); each problem is one line naming the flags.</summary>
    public static IReadOnlyList<string> Problems(ParseResult parsed)
    {
        var problems = new List<string>();
        var logger = parsed.GetValue(Logger);
        var directory = parsed.GetValue(LogDir);
        if (logger == "file" && directory is null)
        {
            problems.Add("--logger file needs --log-dir DIR.");
        }
        else if (logger != "file" && directory is not null)
        {
            problems.Add($"--log-dir is only for --logger file (the logger is {logger}).");
        }
        else if (directory is not null && WritableError(directory) is { } problem)
        {
            problems.Add($"--log-dir {directory.FullName}: {problem}");
        }

        if (logger == "azure-table" && ServiceProbes.AzureConnectionProblem(parsed.GetValue(Connection)!) is { } unparsable)
        {
            problems.Add($"--connection: {unparsable}.");
        }

        if (logger == "azure-table" && TableNameProblem(parsed.GetValue(Table)!) is { } badName)
        {
            problems.Add($"--table: {badName}.");
        }

        // Flags another logger would use are a mistake here, not a choice: said, not ignored.
        foreach (var (flag, option) in new[] { ("--connection", Connection), ("--table", Table) })
        {
            if (logger != "azure-table" && parsed.GetResult(option) is { Implicit: false })
            {
                problems.Add($"{flag} is only for --logger azure-table (the logger is {logger}).");
            }
        }

        var clustering = parsed.GetValue(Clustering);
        if (clustering == "redis" && parsed.GetValue(Redis) is null)
        {
            problems.Add("--clustering redis needs --redis host:port.");
        }
        else if (clustering != "redis" && parsed.GetValue(Redis) is not null)
        {
            problems.Add($"--redis is only for --clustering redis (the clustering is {clustering}).");
        }

        if (clustering == "redis" && parsed.GetValue(Primary) is not null)
        {
            problems.Add("--primary is only for --clustering dev: with redis every silo finds the others in Redis.");
        }

        // Dev clustering runs every silo on loopback: another address would be ignored silently,
        // and peers told of it could not reach the silo there.
        if (clustering != "redis" && parsed.GetResult(Advertise) is { Implicit: false } && parsed.GetValue(Advertise) is { } advertised
            && !IPAddress.IsLoopback(ResolveAddress(advertised)))
        {
            problems.Add($"--advertise {advertised}: --clustering dev runs on loopback (127.0.0.1); to advertise another address use --clustering redis.");
        }

        if (parsed.GetValue(AfterCommitJournal) is { } journal && (Directory.Exists(journal.FullName) || journal.Directory is { Exists: false }))
        {
            problems.Add($"--after-commit-journal {journal.FullName}: {(Directory.Exists(journal.FullName) ? "is a folder" : "its folder does not exist")}; give a file to append to.");
        }

        if (parsed.GetValue(SiloPort) == parsed.GetValue(GatewayPort))
        {
            problems.Add("--silo-port and --gateway-port must differ.");
        }

        return problems;
    }

    // Azure Table's rules for a table name, checked before the silo starts (the SDK throws on first
    // use); the states at rest go to a table named after it with "states" appended (57 + 6 = 63).
    private static string? TableNameProblem(string name) =>
        name.Length is < 3 or > 57 || !char.IsAsciiLetter(name[0]) || !name.All(char.IsAsciiLetterOrDigit)
            ? $"'{name}' is not an Azure table name Snapper can use (3 to 57 letters and digits, beginning with a letter: its states at rest go to the table '{name}states')"
            : null;

    /// <summary>The options a successful parse gives.</summary>
    public static SiloHostOptions Options(ParseResult parsed)
    {
        var siloPort = parsed.GetValue(SiloPort);
        return new SiloHostOptions(
            siloPort,
            parsed.GetValue(GatewayPort),
            parsed.GetValue(Primary) is { } primary ? ParseEndpoint(primary) : null,
            parsed.GetValue(Name) ?? $"silo-{siloPort}",
            parsed.GetValue(Logger)!,
            parsed.GetValue(LogDir),
            parsed.GetValue(LogDelayMs),
            parsed.GetValue(Clustering)!,
            parsed.GetValue(Redis),
            ResolveAddress(parsed.GetValue(Advertise)!),
            parsed.GetValue(Connection),
            parsed.GetValue(Table),
            parsed.GetValue(CheckpointInterval),
            parsed.GetValue(OrleansLockTimeout),
            parsed.GetValue(Verbose),
            parsed.GetValue(MembershipTimeouts) == "fast",
            parsed.GetValue(AfterCommitJournal)?.FullName);
    }

    /// <summary><c>host:port</c>, the host a name or an IPv4 address (see <see cref="OptionChecks.Endpoint"/>).</summary>
    public static IPEndPoint ParseEndpoint(string text) => OptionChecks.Endpoint(text);

    /// <summary>An IPv4 address, or a host name resolved to one.</summary>
    public static IPAddress ResolveAddress(string text)
    {
        if (IPAddress.TryParse(text, out var address))
        {
            return address;
        }

        try
        {
            return Dns.GetHostAddresses(text).First(a => a.AddressFamily == AddressFamily.InterNetwork);
        }
        catch (Exception e) when (e is SocketException or InvalidOperationException or ArgumentException)
        {
            throw new FormatException($"host '{text}' does not resolve to an IPv4 address");
        }
    }

    // An option taking one of a few words: shown in help, completed in shells, refused in one line naming the flag.
    private static Option<string> OneOf(Option<string> option, params string[] values)
    {
        option.HelpName = string.Join('|', values);
        option.CompletionSources.Add(values);
        option.Validators.Add(result =>
        {
            if (result.GetValueOrDefault<string>() is { } value && !values.Contains(value))
            {
                result.AddError($"{result.Option.Name}: '{value}' is not one of {string.Join(", ", values)}.");
            }
        });
        return option;
    }

    private static Option<int> Port(string name, int defaultValue, string description) => new(name)
    {
        Description = description,
        DefaultValueFactory = _ => defaultValue,
        Validators = { result => Range(result, 1, 65535) },
    };

    private static void Range(OptionResult result, int min, int max)
    {
        int value;
        try
        {
            value = result.GetValueOrDefault<int>();
        }
        catch (InvalidOperationException)
        {
            return; // not a number: System.CommandLine reports that, naming the flag
        }

        if (value < min || value > max)
        {
            result.AddError($"{result.Option.Name} must be from {min} to {max} (was {value}).");
        }
    }

    // Checked up front: a directory the silo could not write would fail every transaction later.
    private static string? WritableError(DirectoryInfo directory)
    {
        try
        {
            Directory.CreateDirectory(directory.FullName);
            var probe = Path.Combine(directory.FullName, $".snapper-write-probe-{Environment.ProcessId}");
            using (var stream = new FileStream(probe, FileMode.Create, FileAccess.Write, FileShare.None, 1, FileOptions.None))
            {
                stream.WriteByte(1);
                stream.Flush(flushToDisk: true); // as the file logger will
            }

            File.Delete(probe);
            return null;
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException or NotSupportedException or ArgumentException)
        {
            return $"cannot write and fsync a file there: {e.Message}";
        }
    }
}

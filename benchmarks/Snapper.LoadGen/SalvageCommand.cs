using System.CommandLine;
using Snapper.Logging.FileStorage;

namespace Snapper.LoadGen;

/// <summary>
/// <c>salvage --log-dir DIR [--log NAME]</c>: the way past a file log that a silo refuses to start
/// on as corrupt. For every log in DIR (or the one named), keeps the records before the damage and
/// moves the rest aside, never deleting it (<see cref="FileLogStorage.SalvageAsync"/>), and prints
/// what each log kept and lost. Exit 0 once every log reads, 1 if one could not be salvaged (a silo
/// still writes it, a file cannot be written), 2 for a bad command line or a folder that is not there.
/// </summary>
public static class SalvageCommand
{
    /// <summary>The subcommand's name.</summary>
    public const string Name = "salvage";

    private static readonly Option<DirectoryInfo> LogDir = new("--log-dir")
    {
        Description = "The file logs' folder, as the silos were given it (--log-dir).",
        HelpName = "dir",
        Required = true,
    };

    private static readonly Option<string?> Log = new("--log")
    {
        Description = "Salvage only this log (a folder of --log-dir, snapper-{silo}-{n}); default: every log there.",
        HelpName = "name",
    };

    /// <summary>The subcommand and its flags.</summary>
    public static Command Definition() =>
        new(Name, "Keep the records of a corrupt file log before its damage and move the rest aside (renamed *.corrupt, never deleted); print what each log lost. Run it while no silo uses the folder.")
        {
            LogDir, Log,
        };

    /// <summary>Salvages the logs a parsed <c>salvage</c> names; returns the exit code.</summary>
    public static async Task<int> RunAsync(ParseResult parsed, TextWriter stdout, TextWriter stderr, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(parsed);
        ArgumentNullException.ThrowIfNull(stdout);
        ArgumentNullException.ThrowIfNull(stderr);
        var directory = parsed.GetValue(LogDir)!.FullName;
        if (!Directory.Exists(directory))
        {
            await stderr.WriteLineAsync($"error: --log-dir {directory}: no such folder.");
            return ExitCodes.Usage;
        }

        var storage = new FileLogStorage(new FileLogStorageOptions { Directory = directory });
        await using (storage.ConfigureAwait(false))
        {
            var logs = new List<string>();
            await foreach (var log in storage.ListAsync(cancellationToken))
            {
                logs.Add(log);
            }

            if (parsed.GetValue(Log) is { } only)
            {
                if (!logs.Contains(only, StringComparer.Ordinal))
                {
                    await stderr.WriteLineAsync($"error: --log {only}: {directory} holds no log of that name (it holds {(logs.Count == 0 ? "none" : string.Join(", ", logs))}).");
                    return ExitCodes.Usage;
                }

                logs = [only];
            }

            var failed = false;
            foreach (var log in logs)
            {
                try
                {
                    await stdout.WriteLineAsync(Describe(await storage.SalvageAsync(log, cancellationToken)));
                }
                catch (Exception e) when (e is IOException or UnauthorizedAccessException or InvalidDataException)
                {
                    await stderr.WriteLineAsync($"error: {log}: {e.Message}");
                    failed = true;
                }
            }

            return failed ? ExitCodes.Failure : ExitCodes.Ok;
        }
    }

    private static string Describe(LogSalvageReport report) => report.Salvaged
        ? $"{report.Log}: corrupt at offset {report.Offset} of {report.Segment} ({report.Problem}); kept {report.KeptFrames:N0} record(s) before it; "
            + $"moved {report.LostBytes:N0} byte(s) holding {report.LostFrames:N0} intact record(s) aside: {string.Join(", ", report.MovedAside)}"
        : $"{report.Log}: no damage, {report.KeptFrames:N0} record(s) kept; nothing moved";
}

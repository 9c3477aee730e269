using Snapper.History;

namespace Snapper.LoadGen;

/// <summary>
/// <c>check --history FILE --dump FILE</c>: runs the list-append checker over a history and a list
/// dump written by an earlier <c>listappend</c> run and prints its report. Exit 0 if the history is
/// consistent, 1 if not, 2 for a bad command line or a missing or malformed file.
/// </summary>
public static class CheckCommand
{
    /// <summary>The usage text of the subcommand.</summary>
    public const string Usage = """
        Usage: Snapper.LoadGen check --history FILE --dump FILE

        Checks a listappend history (one JSON line per transaction) against the dump of every
        actor's list, Elle-style: lost, duplicated, misplaced or aborted appends and cycles.
        Exit codes: 0 consistent, 1 violations found, 2 usage error or missing/malformed file.
        """;

    /// <summary>Runs the subcommand on the arguments after <c>check</c>; returns the exit code.</summary>
    public static async Task<int> RunAsync(IReadOnlyList<string> args, TextWriter stdout, TextWriter stderr, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(args);
        ArgumentNullException.ThrowIfNull(stdout);
        ArgumentNullException.ThrowIfNull(stderr);
        string? historyPath = null;
        string? dumpPath = null;
        for (var i = 0; i < args.Count; i++)
        {
            var arg = args[i];
            if (arg is "--help" or "-h" or "-?" or "help")
            {
                await stdout.WriteLineAsync(Usage);
                return ExitCodes.Ok;
            }

            var equals = arg.IndexOf('=', StringComparison.Ordinal);
            var flag = equals < 0 ? arg : arg[..equals];
            string? value = equals < 0 ? null : arg[(equals + 1)..];
            if (flag is not ("--history" or "--dump"))
            {
                return await UsageErrorAsync(stderr, $"check: unexpected argument '{arg}'; it takes --history FILE and --dump FILE.");
            }

            if (value is null)
            {
                if (i + 1 >= args.Count || args[i + 1].StartsWith("--", StringComparison.Ordinal))
                {
                    return await UsageErrorAsync(stderr, $"check: {flag} needs a file.");
                }

                value = args[++i];
            }

            if (string.IsNullOrWhiteSpace(value))
            {
                return await UsageErrorAsync(stderr, $"check: {flag} needs a non-empty file name.");
            }

            if (flag == "--history")
            {
                historyPath = value;
            }
            else
            {
                dumpPath = value;
            }
        }

        if (historyPath is null || dumpPath is null)
        {
            return await UsageErrorAsync(stderr, $"check: {(historyPath is null ? "--history" : "--dump")} FILE is required.");
        }

        IReadOnlyList<HistoryEntry> history;
        try
        {
            history = await HistoryFile.ReadAsync(historyPath, cancellationToken);
        }
        catch (Exception e) when (IsFileProblem(e))
        {
            await stderr.WriteLineAsync($"error: cannot read the history file {historyPath}: {e.Message}");
            return ExitCodes.Usage;
        }

        IReadOnlyDictionary<string, IReadOnlyList<long>> dump;
        try
        {
            dump = await ListDump.ReadAsync(dumpPath, cancellationToken);
        }
        catch (Exception e) when (IsFileProblem(e))
        {
            await stderr.WriteLineAsync($"error: cannot read the dump file {dumpPath}: {e.Message}");
            return ExitCodes.Usage;
        }

        var result = ListAppendChecker.Check(history, dump);
        await stdout.WriteAsync(CheckReport.Render(result));
        return result.Ok ? ExitCodes.Ok : ExitCodes.Failure;
    }

    private static bool IsFileProblem(Exception e) =>
        e is IOException or UnauthorizedAccessException or InvalidDataException or NotSupportedException or ArgumentException;

    private static async Task<int> UsageErrorAsync(TextWriter stderr, string message)
    {
        await stderr.WriteLineAsync($"error: {message}");
        await stderr.WriteLineAsync("Usage: Snapper.LoadGen check --history FILE --dump FILE");
        return ExitCodes.Usage;
    }
}

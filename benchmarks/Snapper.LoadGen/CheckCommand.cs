using Snapper.History;

namespace Snapper.LoadGen;

/// <summary>
/// <c>check --history FILE --dump FILE</c> (flags in <see cref="Options.LoadGenCommandLine"/>): runs the list-append checker over a history and a list
/// dump written by an earlier <c>listappend</c> run and prints its report. Exit 0 if the history is
/// consistent, 1 if not, 2 for a bad command line or a missing or malformed file.
/// </summary>
public static class CheckCommand
{
    /// <summary>Runs the check on the files a parsed <c>check</c> names; returns the exit code.</summary>
    public static async Task<int> RunAsync((FileInfo History, FileInfo Dump) files, TextWriter stdout, TextWriter stderr, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(stdout);
        ArgumentNullException.ThrowIfNull(stderr);
        var (historyPath, dumpPath) = (files.History.FullName, files.Dump.FullName);
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
}

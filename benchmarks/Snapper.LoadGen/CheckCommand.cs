using Snapper.History;

namespace Snapper.LoadGen;

/// <summary>
/// <c>check --history FILE [FILE...] --dump FILE</c> (flags in <see cref="Options.LoadGenCommandLine"/>): runs the list-append checker over a history and a list
/// dump written by an earlier <c>listappend</c> run and prints its report. Exit 0 if the history is
/// consistent, 1 if not, 2 for a bad command line or a missing or malformed file.
/// </summary>
public static class CheckCommand
{
    /// <summary>Runs the check on the files a parsed <c>check</c> names; returns the exit code.</summary>
    public static async Task<int> RunAsync((FileInfo[] Histories, FileInfo Dump) files, TextWriter stdout, TextWriter stderr, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(files.Histories);
        ArgumentNullException.ThrowIfNull(stdout);
        ArgumentNullException.ThrowIfNull(stderr);
        var dumpPath = files.Dump.FullName;

        // Up front, before a long history is read: the OS's "access denied" for a folder names no flag.
        foreach (var (flag, path) in files.Histories.Select(f => ("--history", f.FullName)).Append(("--dump", dumpPath)))
        {
            if (Directory.Exists(path))
            {
                await stderr.WriteLineAsync($"error: {flag} {path} is a folder; give the file the run wrote.");
                return ExitCodes.Usage;
            }
        }

        var history = new List<HistoryEntry>();
        foreach (var file in files.Histories)
        {
            try
            {
                history.AddRange(await HistoryFile.ReadAsync(file.FullName, cancellationToken));
            }
            catch (Exception e) when (IsFileProblem(e))
            {
                await stderr.WriteLineAsync($"error: --history {file.FullName}: cannot read the history file: {e.Message}");
                return ExitCodes.Usage;
            }
        }

        IReadOnlyDictionary<string, IReadOnlyList<long>> dump;
        try
        {
            dump = await ListDump.ReadAsync(dumpPath, cancellationToken);
        }
        catch (Exception e) when (IsFileProblem(e))
        {
            await stderr.WriteLineAsync($"error: --dump {dumpPath}: cannot read the dump file: {e.Message}");
            return ExitCodes.Usage;
        }

        var result = ListAppendChecker.Check(history, dump);
        await stdout.WriteAsync(CheckReport.Render(result));
        return result.Ok ? ExitCodes.Ok : ExitCodes.Failure;
    }

    private static bool IsFileProblem(Exception e) =>
        e is IOException or UnauthorizedAccessException or InvalidDataException or NotSupportedException or ArgumentException;
}

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
    public static async Task<int> RunAsync((FileInfo[] Histories, FileInfo Dump, FileInfo? Journal) files, TextWriter stdout, TextWriter stderr, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(files.Histories);
        ArgumentNullException.ThrowIfNull(stdout);
        ArgumentNullException.ThrowIfNull(stderr);
        var dumpPath = files.Dump.FullName;

        // Up front, before a long history is read: the OS's "access denied" for a folder names no flag.
        var paths = files.Histories.Select(f => ("--history", f.FullName)).Append(("--dump", dumpPath));
        if (files.Journal is { } journalFile)
        {
            paths = paths.Append(("--journal", journalFile.FullName));
        }

        foreach (var (flag, path) in paths)
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

        AfterCommitChecker.Journal? journal = null;
        if (files.Journal is { } journalPath)
        {
            try
            {
                journal = AfterCommitChecker.Read(await File.ReadAllLinesAsync(journalPath.FullName, cancellationToken));
            }
            catch (Exception e) when (IsFileProblem(e))
            {
                await stderr.WriteLineAsync($"error: --journal {journalPath.FullName}: cannot read the after-commit journal: {e.Message}");
                return ExitCodes.Usage;
            }
        }

        var result = ListAppendChecker.Check(history, dump);
        await stdout.WriteAsync(CheckReport.Render(result));
        var ok = result.Ok;
        if (journal is not null)
        {
            var actions = AfterCommitChecker.Check(history, journal);
            await stdout.WriteAsync(AfterCommitChecker.Render(actions));
            ok &= actions.Ok;
        }

        return ok ? ExitCodes.Ok : ExitCodes.Failure;
    }

    private static bool IsFileProblem(Exception e) =>
        e is IOException or UnauthorizedAccessException or InvalidDataException or NotSupportedException or ArgumentException;
}

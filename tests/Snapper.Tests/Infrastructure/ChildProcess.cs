using System.Diagnostics;

namespace Snapper.Tests.Infrastructure;

/// <summary>Runs a program to its exit, with a deadline, and hands back its exit code and everything it printed.</summary>
public static class ChildProcess
{
    /// <summary>
    /// How long a kill-under-load script (crash-loop.sh, failover.sh) of <paramref name="rounds"/>
    /// rounds may run: after each kill its LoadGen may take its whole 45 s drain and its client's
    /// bounded stop, and silos start slowly on a machine busy with the rest of the suite.
    /// </summary>
    public static TimeSpan ScriptPatience(int rounds) => TimeSpan.FromMinutes(2 + (3 * rounds));

    /// <summary>
    /// Runs <paramref name="program"/> with <paramref name="args"/> in <paramref name="directory"/>
    /// (the repository's root if null), with <paramref name="environment"/> added. Killed, with its
    /// children, if it runs past <paramref name="patience"/>.
    /// </summary>
    public static async Task<(int Exit, string Output)> RunAsync(string program, IEnumerable<string> args, TimeSpan patience, string? directory = null, IReadOnlyDictionary<string, string>? environment = null)
    {
        var (exit, stdout, stderr) = await RunSplitAsync(program, args, patience, directory, environment);
        return (exit, stdout + stderr);
    }

    /// <summary>As <see cref="RunAsync"/>, with stdout and stderr apart.</summary>
    public static async Task<(int Exit, string Stdout, string Stderr)> RunSplitAsync(string program, IEnumerable<string> args, TimeSpan patience, string? directory = null, IReadOnlyDictionary<string, string>? environment = null)
    {
        var info = new ProcessStartInfo(program) { WorkingDirectory = directory ?? RepositoryPaths.Root(), RedirectStandardOutput = true, RedirectStandardError = true, UseShellExecute = false };
        foreach (var arg in args)
        {
            info.ArgumentList.Add(arg);
        }

        info.Environment["DOTNET_CLI_TELEMETRY_OPTOUT"] = "1";
        info.Environment["DOTNET_NOLOGO"] = "1";
        foreach (var (name, value) in environment ?? new Dictionary<string, string>())
        {
            info.Environment[name] = value;
        }

        using var process = Process.Start(info)!;
        var stdout = process.StandardOutput.ReadToEndAsync();
        var stderr = process.StandardError.ReadToEndAsync();
        try
        {
            await process.WaitForExitAsync().WaitAsync(patience);
        }
        catch (TimeoutException e)
        {
            // What it printed up to then is the only clue to where it hung.
            process.Kill(entireProcessTree: true);
            await process.WaitForExitAsync();
            throw new TimeoutException($"{program} {string.Join(' ', info.ArgumentList)} ran past {patience}; it printed:{Environment.NewLine}{await stdout}{await stderr}", e);
        }

        return (process.ExitCode, await stdout, await stderr);
    }
}

using System.Text.Json;
using Snapper.LoadGen;
using Snapper.Tests.Infrastructure;
using Snapper.Tests.Logging.FileStorage;

namespace Snapper.Tests.LoadGen;

/// <summary><c>scale</c>, issue 52's measurement, at a tiny size: every step runs and reports what it measured.</summary>
public sealed class ScaleCommandTests : IDisposable
{
    private readonly TempDirectory temp = new();

    public void Dispose() => temp.Dispose();

    [Fact]
    public async Task Scale_writes_every_account_checkpoints_them_collects_the_idle_ones_and_restarts_on_the_same_log()
    {
        var json = Path.Combine(temp.Path, "scale.json");
        var logs = Path.Combine(temp.Path, "logs");
        // In a process of its own: scale forces full collections and weighs its process's heap,
        // which in the test host would pause every other test and weigh their silos too.
        var dll = Path.Combine(AppContext.BaseDirectory, "Snapper.LoadGen.dll");
        var (exit, stdout, stderr) = await ChildProcess.RunSplitAsync(
            "dotnet",
            [dll, "scale", "--actors", "300", "--width", "50", "--duration", "1", "--pipeline", "4", "--log-dir", logs, "--json", json],
            TimeSpan.FromMinutes(3));

        Assert.True(exit == 0, $"exit {exit}\n{stdout}\n{stderr}");
        using var report = JsonDocument.Parse(await File.ReadAllTextAsync(json));
        var figures = report.RootElement;
        Assert.Equal(300, figures.GetProperty("actors").GetInt32());

        // The first round restates each written account once; the log keeps them (--log-dir).
        var afterWrite = figures.GetProperty("checkpointAfterWrite");
        Assert.Equal(300, afterWrite.GetProperty("states").GetInt64());
        Assert.True(afterWrite.GetProperty("bytes").GetInt64() > 300, stdout);
        Assert.True(figures.GetProperty("loadThroughput").GetDouble() > 0, stdout);
        Assert.True(Directory.EnumerateFiles(logs, "*", SearchOption.AllDirectories).Any(), "the log folder given is kept");

        // Idle collection took the accounts' activations (300 of them were active while written).
        Assert.True(figures.GetProperty("afterIdleCollection").GetProperty("activations").GetInt32() < 100, stdout);
        Assert.True(figures.GetProperty("restartServedSeconds").GetDouble() > 0, stdout);
        Assert.Contains("scale: restarted on the same log: served in", stdout);
    }

    [Theory]
    [InlineData("--actors", "1", "--actors must be from 2 to 100,000,000 (was 1).")]
    [InlineData("--width", "1001", "--width must be from 2 to 1,000 (was 1001).")]
    [InlineData("--duration", "0", "--duration must be from 1 to 3,600 (was 0).")]
    public async Task A_bad_number_is_one_line_naming_its_flag(string flag, string value, string problem)
    {
        var (exit, stdout, stderr) = await LoadGenAsync("scale", flag, value);

        Assert.Equal(ExitCodes.Usage, exit);
        Assert.Equal($"error: {problem}", stderr.Split('\n')[0].TrimEnd());
        Assert.DoesNotContain("scale:", stdout);
    }

    [Fact]
    public async Task A_log_folder_that_holds_something_is_refused_before_a_silo_starts()
    {
        await File.WriteAllTextAsync(Path.Combine(temp.Path, "keep.txt"), "an operator's file");

        var (exit, stdout, stderr) = await LoadGenAsync("scale", "--log-dir", temp.Path);

        Assert.Equal(ExitCodes.Usage, exit);
        Assert.Equal($"error: --log-dir {temp.Path}: the folder is not empty; scale writes a database of its own and needs an empty one.", stderr.TrimEnd());
        Assert.Empty(stdout);
        Assert.True(File.Exists(Path.Combine(temp.Path, "keep.txt")));
    }

    private static async Task<(int Exit, string Stdout, string Stderr)> LoadGenAsync(params string[] args)
    {
        var (stdout, stderr) = (new StringWriter(), new StringWriter());
        var exit = await Runner.MainAsync(args, stdout, stderr, CancellationToken.None);
        return (exit, stdout.ToString(), stderr.ToString());
    }
}

using Snapper.Tests.Infrastructure;

namespace Snapper.Tests.LoadGen;

/// <summary>
/// LoadGen as README runs it, in a process of its own: Orleans' false Watchdog alarm fires at a
/// silo's start there (it measures from the machine's boot), so this is where its filter shows.
/// </summary>
public sealed class LoadGenProcessTests
{
    [Fact]
    public async Task READMEs_command_prints_results_on_stdout_and_no_false_alarm_anywhere()
    {
        var dll = Path.Combine(AppContext.BaseDirectory, "Snapper.LoadGen.dll");
        var (exit, stdout, stderr) = await ChildProcess.RunSplitAsync(
            "dotnet",
            [dll, "smallbank", "--modes", "pact", "--actors", "1000", "--duration", "1", "--warmup", "0", "--jit-settle", "0", "--verify"],
            TimeSpan.FromMinutes(3));

        Assert.True(exit == 0, $"exit {exit}\n{stdout}\n{stderr}");
        Assert.Contains("pact verify: ok", stdout, StringComparison.Ordinal);
        Assert.DoesNotMatch(@"(?m)^\s*(warn|warning|fail|error)\b", stdout);
        Assert.DoesNotContain("Participant check thread", stdout + stderr, StringComparison.Ordinal);
    }
}

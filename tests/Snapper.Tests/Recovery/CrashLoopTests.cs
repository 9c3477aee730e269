using Snapper.Tests.Infrastructure;

namespace Snapper.Tests.Recovery;

/// <summary>
/// scripts/crash-loop.sh against real processes: a SiloHost SIGKILLed under hybrid list-append load,
/// restarted on its file logs or its Azure table, and the list-append checker over every history and
/// a final dump. SNAPPER_CRASH_ROUNDS sets the rounds (default 1, a CI-sized smoke).
/// </summary>
[Collection(ScriptedClusters.Name)]
public sealed class CrashLoopTests
{
    private static readonly int Rounds = int.TryParse(Environment.GetEnvironmentVariable("SNAPPER_CRASH_ROUNDS"), out var rounds) && rounds > 0 ? rounds : 1;

    [Theory]
    [InlineData("file")]
    [InlineData("azure-table")]
    public async Task Nothing_acknowledged_is_lost_when_the_silo_is_killed_under_load(string logger)
    {
        if (logger == "azure-table")
        {
            await Azurite.EnsureInstalled(); // the script starts its own
        }

        var state = Directory.CreateTempSubdirectory("snapper-crash-");
        try
        {
            var environment = new Dictionary<string, string> { ["CRASH_DIR"] = state.FullName, ["SKIP_BUILD"] = "1" }; // SKIP_BUILD: the test run's own build
            var (exit, output) = await ChildProcess.RunAsync("bash", ["scripts/crash-loop.sh", logger, $"{Rounds}"], ChildProcess.ScriptPatience(Rounds), environment: environment);
            Assert.True(exit == 0, output);
            Assert.Contains("killed the silo", output, StringComparison.Ordinal);
            Assert.Contains(", 0 violations", output, StringComparison.Ordinal);
        }
        finally
        {
            state.Delete(recursive: true);
        }
    }
}

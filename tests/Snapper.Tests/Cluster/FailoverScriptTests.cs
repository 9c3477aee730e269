using Snapper.Tests.Infrastructure;

namespace Snapper.Tests.Cluster;

/// <summary>
/// scripts/failover.sh against real processes: two SiloHosts with Redis clustering sharing one log
/// folder, one of them SIGKILLed under list-append load (hybrid, then early-lock-release ACTs), the
/// survivor failing it over, and the list-append checker over every history and a final dump.
/// SNAPPER_FAILOVER_ROUNDS sets the rounds (default 1: hybrid load; the membership nemesis,
/// ChaosScriptTests, kills a silo under early-lock-release load in its first round).
/// </summary>
[Collection(ScriptedClusters.Name)]
public sealed class FailoverScriptTests
{
    private static readonly int Rounds = int.TryParse(Environment.GetEnvironmentVariable("SNAPPER_FAILOVER_ROUNDS"), out var rounds) && rounds > 0 ? rounds : 1;

    [Fact]
    public async Task Nothing_acknowledged_is_lost_when_one_silo_of_two_is_killed_under_load()
    {
        var state = Directory.CreateTempSubdirectory("snapper-failover-");
        try
        {
            var environment = new Dictionary<string, string>
            {
                ["FAILOVER_DIR"] = state.FullName,
                ["FAILOVER_ROUNDS"] = $"{Rounds}",
                ["SKIP_BUILD"] = "1", // the test run's own build
            };
            var (exit, output) = await ChildProcess.RunAsync("bash", ["scripts/failover.sh", "file"], ChildProcess.ScriptPatience(Rounds), environment: environment);
            Assert.True(exit == 0, output);
            Assert.Equal(Rounds, output.Split('\n').Count(l => l.Contains("Failover of silo", StringComparison.Ordinal) && l.Contains(" done in ", StringComparison.Ordinal)));
            Assert.Contains(", 0 violations", output, StringComparison.Ordinal);
        }
        finally
        {
            state.Delete(recursive: true);
        }
    }
}

using Snapper.Tests.Infrastructure;

namespace Snapper.Tests.Cluster;

/// <summary>
/// scripts/chaos.sh against real processes: SiloHosts with Redis clustering and lowered membership
/// timing on one shared log folder or Azure table, under list-append load through every live
/// gateway (early-lock-release ACTs, then hybrid), a silo joining, one leaving (SIGTERM), one
/// SIGKILLed and one paused (SIGSTOP) until the others declare it dead, each round; then the
/// list-append checker over every history and a final dump. SNAPPER_CHAOS_ROUNDS sets the rounds
/// (default 1: one event of each kind), SNAPPER_CHAOS_LOGGERS the loggers, comma-separated (default
/// file; <c>file,azure-table</c> runs both: about two minutes each, which the suite's budget has room
/// for only once; the Azure Table log's fencing, failover and crash loop have their own tests in
/// <see cref="Logging.LogFencingTests"/> and <see cref="Recovery.CrashLoopTests"/>). Every paused silo must be fenced (CHAOS_REQUIRE_FENCE=1):
/// the survivors fence it out of its logs before they read them, and woken it is refused its
/// appends or stops before it appends anything.
/// </summary>
[Collection(ScriptedClusters.Name)]
public sealed class ChaosScriptTests
{
    private static readonly int Rounds = int.TryParse(Environment.GetEnvironmentVariable("SNAPPER_CHAOS_ROUNDS"), out var rounds) && rounds > 0 ? rounds : 1;

    public static TheoryData<string> Loggers => [.. (Environment.GetEnvironmentVariable("SNAPPER_CHAOS_LOGGERS") is { Length: > 0 } named ? named : "file")
        .Split(',', StringSplitOptions.TrimEntries | StringSplitOptions.RemoveEmptyEntries)];

    [Theory]
    [MemberData(nameof(Loggers))]
    public async Task Nothing_acknowledged_is_lost_when_silos_join_leave_die_and_pause_under_load(string logger)
    {
        Assert.True(logger is "file" or "azure-table", $"SNAPPER_CHAOS_LOGGERS: '{logger}' is no logger (file, azure-table)");
        if (logger == "azure-table")
        {
            await Azurite.EnsureInstalled(); // the script starts its own
        }

        var state = Directory.CreateTempSubdirectory("snapper-chaos-");
        var passed = false;
        try
        {
            var environment = new Dictionary<string, string>
            {
                ["CHAOS_DIR"] = state.FullName,
                ["CHAOS_TAIL"] = "1", // a second of load after each event, not two
                ["SKIP_BUILD"] = "1", // the test run's own build
                ["CHAOS_REQUIRE_FENCE"] = "1",
                ["CHAOS_CHECKPOINT_INTERVAL"] = "1", // rounds move states to the store and truncate while silos come and go
            };

            // A round is about a minute on two cores (four silos start); the bound leaves room for
            // a graceful leave that runs into Orleans' 30 s shutdown timeout.
            var patience = TimeSpan.FromMinutes(2 + (4 * Rounds));
            var (exit, output) = await ChildProcess.RunAsync("bash", ["scripts/chaos.sh", logger, $"{Rounds}"], patience, environment: environment);
            Assert.True(exit == 0, $"{output}\n(the silos' and loads' logs are kept in {state.FullName})");

            // The script's own lines; a silo's log lines it quotes may hold the same words.
            var rounds = output.Split('\n').Where(l => l.StartsWith("round ", StringComparison.Ordinal)).ToArray();
            Assert.Equal(Rounds, rounds.Count(l => l.Contains("joined in", StringComparison.Ordinal)));
            Assert.Equal(Rounds, rounds.Count(l => l.Contains("failed over", StringComparison.Ordinal) && l.Contains("after the SIGTERM", StringComparison.Ordinal)));
            Assert.Equal(Rounds, rounds.Count(l => l.Contains("failed over", StringComparison.Ordinal) && l.Contains("after the SIGKILL", StringComparison.Ordinal)));
            Assert.Equal(Rounds, rounds.Count(l => l.Contains("declared dead and failed over", StringComparison.Ordinal)));
            Assert.Equal(Rounds, rounds.Count(l => l.Contains("was fenced: the survivors fenced it out of its log(s)", StringComparison.Ordinal)));
            Assert.Contains(", 0 violations", output, StringComparison.Ordinal);
            passed = true;
        }
        finally
        {
            if (passed)
            {
                state.Delete(recursive: true);
            }
            else
            {
                Console.Error.WriteLine($"chaos state (silo and load logs) kept in {state.FullName}");
            }
        }
    }
}

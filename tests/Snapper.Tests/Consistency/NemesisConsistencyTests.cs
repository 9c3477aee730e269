using Snapper.LoadGen;

namespace Snapper.Tests.Consistency;

/// <summary>
/// Every mode on a living cluster: LoadGen's nemesis deactivates, migrates, delays and times out
/// while list-append runs, and the history must still check (no lost, duplicated or misplaced
/// append, no cycle), every transaction must finish, and every actor must answer afterwards.
/// SNAPPER_NEMESIS_SECONDS sets each mode's measured window (2 s by default).
/// </summary>
public sealed class NemesisConsistencyTests
{
    private static readonly string Seconds = Environment.GetEnvironmentVariable("SNAPPER_NEMESIS_SECONDS") is { Length: > 0 } s ? s : "2";

    [Theory]
    [InlineData("deactivate")]
    [InlineData("migrate")]
    [InlineData("delay")]
    [InlineData("timeout")]
    [InlineData("deactivate,migrate,delay,timeout")]
    public async Task List_append_checks_in_every_mode_under_the_nemesis(string faults)
    {
        var folder = Directory.CreateTempSubdirectory("snapper-nemesis-");
        try
        {
            var (history, dump) = (Path.Combine(folder.FullName, "h.jsonl"), Path.Combine(folder.FullName, "d.json"));
            string[] rate = faults.Contains("deactivate", StringComparison.Ordinal) || faults.Contains("migrate", StringComparison.Ordinal) ? ["--nemesis-rate", "20"] : [];
            var (exit, stdout, stderr) = await Run(
                ["listappend", "--modes", "pact,act,act-elr,hybrid", "--pact-percent", "90", "--actors", "16", "--warmup", "1", "--duration", Seconds,
                 "--jit-settle", "0", "--nemesis", faults, .. rate, "--history", history, "--dump", dump, "--verify"]);

            Assert.True(exit == 0, $"exit {exit}\n{stdout}\n{stderr}");
            Assert.Contains("list-append check OK", stdout);
            Assert.Contains(" 0 violations", stdout);
            Assert.DoesNotContain("did not drain", stderr);
            Assert.DoesNotContain("looks stuck", stderr);
        }
        finally
        {
            folder.Delete(recursive: true);
        }
    }

    /// <summary>
    /// The nested workload (call trees: calls back into actors already in the transaction, parallel
    /// calls, throwing and swallowing nodes) in every mode: it checks, and nothing is left stuck.
    /// Under the nemesis it is not in the suite yet (issue 50): a call back into a going actor waits
    /// for the response timeout, and a tree that reaches an actor again after the actor's activation
    /// went can commit without its first visit's write.
    /// </summary>
    [Fact]
    public async Task Nested_call_trees_check_in_every_mode()
    {
        var folder = Directory.CreateTempSubdirectory("snapper-nested-");
        try
        {
            var (history, dump) = (Path.Combine(folder.FullName, "h.jsonl"), Path.Combine(folder.FullName, "d.json"));
            var (exit, stdout, stderr) = await Run(
                ["nested", "--modes", "pact,act,act-elr,hybrid", "--warmup", "1", "--duration", Seconds, "--jit-settle", "0",
                 "--history", history, "--dump", dump, "--verify"]);

            Assert.True(exit == 0, $"exit {exit}\n{stdout}\n{stderr}");
            Assert.Contains("list-append check OK", stdout);
            Assert.Contains(" 0 violations", stdout);
            Assert.DoesNotContain("looks stuck", stderr);
        }
        finally
        {
            folder.Delete(recursive: true);
        }
    }

    // act-elr is left out: under these faults its dependents can still wait on roots that are
    // deactivating (a stall, not a lost write; docs/architecture.md, "An activation goes").
    [Fact]
    public async Task SmallBank_keeps_the_money_in_pact_act_and_hybrid_while_actors_are_deactivated_moved_and_delayed()
    {
        var (exit, stdout, stderr) = await Run(
            ["smallbank", "--modes", "pact,act,hybrid", "--actors", "200", "--warmup", "1", "--duration", Seconds, "--jit-settle", "0",
             "--nemesis", "deactivate,migrate,delay", "--nemesis-rate", "20", "--verify"]);

        Assert.True(exit == 0, $"exit {exit}\n{stdout}\n{stderr}");
        foreach (var mode in new[] { "pact", "act", "hybrid" })
        {
            Assert.Contains($"{mode} verify: ok", stdout);
        }
    }

    private static async Task<(int Exit, string Stdout, string Stderr)> Run(string[] args)
    {
        var (stdout, stderr) = (new StringWriter(), new StringWriter());
        var exit = await Runner.MainAsync(args, stdout, stderr, CancellationToken.None);
        return (exit, stdout.ToString(), stderr.ToString());
    }
}

using System.Text.Json;
using Snapper.LoadGen;
using Snapper.Tests.Infrastructure;

namespace Snapper.Tests.LoadGen;

/// <summary>
/// LoadGen's retry and promotion counts. They come from Snapper's meter, which every silo in the
/// process reports to, so these runs go alone (after the parallel tests): another test's promotions
/// would be counted as theirs.
/// </summary>
[Collection(TimingSensitive.Name)]
public sealed class LoadGenPromotionTests
{
    [Theory]
    [InlineData("on")]
    [InlineData("off")]
    public async Task SmallBank_ACTs_retry_by_default_and_attempts_per_commit_and_promotions_are_reported_by_mode_and_hybrid_kind(string promote)
    {
        var json = Path.Combine(Path.GetTempPath(), $"snapper-loadgen-{Guid.NewGuid():N}.json");
        var (stdout, stderr) = (new StringWriter(), new StringWriter());
        try
        {
            // 20 accounts under 16 loops: ACTs collide, die and come back (as PACTs, when promoted).
            var exit = await Runner.MainAsync(
                ["smallbank", "--modes", "pact,act,hybrid", "--pact-percent", "50", "--pact-attempts", "3", "--actors", "20", "--duration", "2", "--warmup", "0", "--pipeline", "8", "--verify", "--json", json, "--promote", promote],
                stdout, stderr, CancellationToken.None);

            Assert.True(exit == 0, $"exit {exit}\n{stdout}\n{stderr}");
            var lines = stdout.ToString().Split('\n');
            var suffix = promote == "on" ? "(retries inside RunAct included, up to 10 attempt(s) each, and its promoted runs)" : "(retries inside RunAct included, up to 10 attempt(s) each)";
            Assert.Contains(lines, l => l.StartsWith("act attempts per commit:", StringComparison.Ordinal) && l.EndsWith(suffix, StringComparison.Ordinal));
            Assert.Contains(lines, l => l.StartsWith("hybrid:act attempts per commit:", StringComparison.Ordinal) && l.EndsWith(suffix, StringComparison.Ordinal));
            Assert.Contains(lines, l => l.StartsWith("act promoted: ", StringComparison.Ordinal) && l.Contains(promote == "on" ? "commits came as PACTs" : "none (--promote off)", StringComparison.Ordinal));

            // SmallBank PACTs never abort, so with retries allowed each commit took one attempt,
            // and hybrid's ACT retries are not counted against its PACTs.
            Assert.Contains("pact attempts per commit: 1.00 (retries inside RunPact included, up to 3 attempt(s) each)", lines);
            Assert.Contains("hybrid:pact attempts per commit: 1.00 (retries inside RunPact included, up to 3 attempt(s) each)", lines);
            using var report = JsonDocument.Parse(await File.ReadAllTextAsync(json));
            var runs = report.RootElement.GetProperty("runs").EnumerateArray().ToDictionary(r => r.GetProperty("mode").GetString()!);
            var act = runs["act"];
            var hybridAct = runs["hybrid"].GetProperty("kinds").GetProperty("act");
            Assert.True(act.GetProperty("attemptsPerCommit").GetDouble() > 1, $"no ACT died on 20 accounts: {stdout}");
            Assert.True(hybridAct.GetProperty("attemptsPerCommit").GetDouble() >= 1);
            var promoted = act.GetProperty("promoted").GetInt64();
            Assert.True(promote == "on" ? promoted > 0 : promoted == 0, $"act promoted {promoted} with --promote {promote}: {stdout}");
            var reconnoitred = act.GetProperty("reconnoitred").GetInt64();
            Assert.True(promote == "on" ? reconnoitred >= 0 : reconnoitred == 0, $"act reconnoitred {reconnoitred} with --promote {promote}");
            var hybridPromoted = hybridAct.GetProperty("promoted").GetInt64();
            Assert.True(promote == "on" ? hybridPromoted >= 0 : hybridPromoted == 0, $"hybrid:act promoted {hybridPromoted} with --promote {promote}");
        }
        finally
        {
            File.Delete(json);
        }
    }
}

using System.Text.Json;
using Snapper.LoadGen;
using Snapper.Tests.Infrastructure;

namespace Snapper.Tests.Cluster;

/// <summary>
/// Two SiloHost processes form a cluster, and LoadGen drives them as an Orleans client
/// (<c>--cluster</c>), as README's cluster example does: SmallBank verified, a list-append
/// history checked, both silos stopped by SIGTERM.
/// </summary>
public sealed class SiloHostProcessTests
{
    [Fact]
    public async Task LoadGen_drives_two_SiloHost_processes_and_both_stop_cleanly()
    {
        await using var primary = await SiloHostProcess.StartAsync();
        await using var secondary = await SiloHostProcess.StartAsync(primary);
        var cluster = $"127.0.0.1:{primary.GatewayPort},127.0.0.1:{secondary.GatewayPort}";
        var folder = Directory.CreateTempSubdirectory("snapper-silohost-");
        try
        {
            var json = Path.Combine(folder.FullName, "r.json");
            var (exit, stdout, stderr) = await LoadGen(
                "smallbank", "--cluster", cluster, "--modes", "nt,pact,act,hybrid", "--pact-percent", "90", "--dist", "zipf", "--zipf", "1.25",
                "--actors", "500", "--duration", "2", "--warmup", "1", "--jit-settle", "0", "--pipeline", "8", "--verify", "--json", json);
            Assert.True(exit == 0, $"exit {exit}\n{stdout}\n{stderr}\n{primary.Output}\n{secondary.Output}");
            using (var report = JsonDocument.Parse(await File.ReadAllTextAsync(json)))
            {
                var clusterInfo = report.RootElement.GetProperty("cluster");
                Assert.Equal("external", clusterInfo.GetProperty("kind").GetString());
                Assert.Equal(2, clusterInfo.GetProperty("silos").GetInt32());
                var pact = report.RootElement.GetProperty("runs").EnumerateArray().Single(r => r.GetProperty("mode").GetString() == "pact");
                Assert.True(pact.GetProperty("committed").GetInt64() > 0);
                Assert.Equal(0, pact.GetProperty("aborted").GetInt64()); // PACTs never abort for concurrency reasons
            }

            var (history, dump) = (Path.Combine(folder.FullName, "h.jsonl"), Path.Combine(folder.FullName, "d.json"));
            (exit, stdout, stderr) = await LoadGen(
                "listappend", "--cluster", cluster, "--modes", "pact,act,hybrid", "--actors", "32", "--duration", "2", "--warmup", "0", "--pipeline", "8",
                "--history", history, "--dump", dump);
            Assert.True(exit == 0, $"exit {exit}\n{stdout}\n{stderr}");
            (exit, stdout, stderr) = await LoadGen("check", "--history", history, "--dump", dump);
            Assert.True(exit == 0, $"check: exit {exit}\n{stdout}\n{stderr}");
            Assert.Contains("0 violations", stdout);
        }
        finally
        {
            folder.Delete(recursive: true);
        }

        Assert.Equal(0, await secondary.TerminateAsync());
        Assert.Equal(0, await primary.TerminateAsync());
        Assert.Contains("stopped", primary.Output);
    }

    [Theory]
    [InlineData("--silo-port", "0")]
    [InlineData("--logger", "bogus")]
    [InlineData("--primary", "no-port")]
    [InlineData("--clustering", "redis")] // without --redis
    [InlineData("--log-dir", "/proc/forbidden")]
    public async Task A_bad_flag_exits_2_with_one_line_naming_it(string flag, string value)
    {
        var args = flag == "--log-dir" ? ["--logger", "file", flag, value] : new[] { flag, value };
        var (exit, output) = await SiloHostProcess.RunToExitAsync(args);
        Assert.Equal(2, exit);
        Assert.Contains($"error: {flag}", output);
        Assert.DoesNotContain("serving", output);
    }

    [Fact]
    public async Task LoadGen_says_which_cluster_it_could_not_reach()
    {
        var (exit, _, stderr) = await LoadGen("smallbank", "--cluster", "127.0.0.1:9", "--duration", "1", "--warmup", "0");
        Assert.Equal(1, exit);
        Assert.Contains("could not connect to the cluster at 127.0.0.1:9", stderr);
    }

    private static async Task<(int Exit, string Stdout, string Stderr)> LoadGen(params string[] args)
    {
        var (stdout, stderr) = (new StringWriter(), new StringWriter());
        var exit = await Runner.MainAsync(args, stdout, stderr, CancellationToken.None);
        return (exit, stdout.ToString(), stderr.ToString());
    }
}

using System.Net;
using System.Net.Sockets;
using Snapper.LoadGen;
using Snapper.Tests.Infrastructure;

namespace Snapper.Tests.Cluster;

/// <summary>
/// The cluster a user brings up: scripts/cluster.sh (Redis membership, Azurite tables for the logs,
/// two SiloHost processes)
/// driven by LoadGen as a client, and docker-compose.yml, the same topology in containers.
/// Needs redis-server and docker-compose (Debian packages; .ci/run installs both).
/// </summary>
[Collection(ScriptedClusters.Name)]
public sealed class ClusterScriptTests
{
    private static readonly TimeSpan Patience = TimeSpan.FromMinutes(3);

    [Fact]
    public async Task A_Redis_clustered_pair_of_SiloHosts_comes_up_serves_a_verified_run_and_goes_down()
    {
        await Azurite.EnsureInstalled(); // cluster.sh starts its own
        var state = Directory.CreateTempSubdirectory("snapper-cluster-");
        var ports = Enumerable.Range(0, 6).Select(_ => FreePort()).ToArray();
        var environment = new Dictionary<string, string>
        {
            ["CLUSTER_DIR"] = state.FullName,
            ["SKIP_BUILD"] = "1", // the test run's own build: rebuilding could rewrite SiloHost.dll under other tests' silos
            ["REDIS_PORT"] = $"{ports[0]}",
            ["SILO1_PORT"] = $"{ports[1]}",
            ["GATEWAY1_PORT"] = $"{ports[2]}",
            ["SILO2_PORT"] = $"{ports[3]}",
            ["GATEWAY2_PORT"] = $"{ports[4]}",
            ["TABLE_PORT"] = $"{ports[5]}",
        };
        try
        {
            var (up, upOutput) = await Run("bash", environment, "scripts/cluster.sh", "up");
            Assert.True(up == 0, upOutput);
            Assert.Contains("redis clustering", upOutput, StringComparison.Ordinal);
            Assert.Contains("logger azure-table", upOutput, StringComparison.Ordinal);

            var (stdout, stderr) = (new StringWriter(), new StringWriter());
            var exit = await Runner.MainAsync(
                ["smallbank", "--cluster", $"127.0.0.1:{ports[2]},127.0.0.1:{ports[4]}", "--modes", "nt,pact,act,orleans-txn", "--actors", "300", "--duration", "2", "--warmup", "1", "--jit-settle", "0", "--pipeline", "4", "--verify"],
                stdout, stderr, CancellationToken.None);
            Assert.True(exit == 0, $"exit {exit}\n{stdout}\n{stderr}");
            Assert.Contains("cluster: external, 2 silo(s)", stdout.ToString(), StringComparison.Ordinal);
        }
        finally
        {
            var (down, downOutput) = await Run("bash", environment, "scripts/cluster.sh", "down");
            state.Delete(recursive: true);
            Assert.True(down == 0, downOutput);
        }
    }

    [Fact]
    public async Task The_compose_file_is_valid()
    {
        var (exit, output) = await Run("docker-compose", [], "-f", "docker-compose.yml", "config", "-q");
        Assert.True(exit == 0, output);
    }

    private static async Task<(int Exit, string Output)> Run(string program, Dictionary<string, string> environment, params string[] args)
    {
        if (program == "docker-compose" && !OnPath(program))
        {
            Assert.Fail("docker-compose is not installed: apt-get install docker-compose (README's Debian packages; .ci/run installs it)");
        }

        var (exit, output) = await ChildProcess.RunAsync(program, args, Patience, environment: environment);
        return (exit, $"{program} {string.Join(' ', args)}:\n{output}");
    }

    private static bool OnPath(string program) =>
        (Environment.GetEnvironmentVariable("PATH") ?? "").Split(Path.PathSeparator).Any(folder => File.Exists(Path.Combine(folder, program)));

    private static int FreePort()
    {
        using var listener = new TcpListener(IPAddress.Loopback, 0);
        listener.Start();
        return ((IPEndPoint)listener.LocalEndpoint).Port;
    }
}

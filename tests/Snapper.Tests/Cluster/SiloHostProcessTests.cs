using System.Diagnostics;
using System.Globalization;
using System.Net;
using System.Net.Sockets;
using System.Text.Json;
using System.Text.RegularExpressions;
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

        // It says one line when it serves; Orleans' false Watchdog alarm at start-up is not shown.
        Assert.Single(primary.Stdout);
        Assert.Single(secondary.Stdout);
        Assert.DoesNotContain("Participant check thread", primary.Output + secondary.Output);
        var cluster = $"127.0.0.1:{primary.GatewayPort},127.0.0.1:{secondary.GatewayPort}";
        var folder = Directory.CreateTempSubdirectory("snapper-silohost-");
        try
        {
            var json = Path.Combine(folder.FullName, "r.json");
            var (exit, stdout, stderr) = await LoadGen(
                "smallbank", "--cluster", cluster, "--modes", "nt,pact,act,hybrid", "--pact-percent", "90", "--dist", "zipf", "--zipf", "1.25",
                "--actors", "500", "--duration", "3", "--warmup", "2", "--jit-settle", "0", "--pipeline", "8", "--verify", "--json", json);
            Assert.True(exit == 0, $"exit {exit}\n{stdout}\n{stderr}\n{primary.Output}\n{secondary.Output}");
            using (var report = JsonDocument.Parse(await File.ReadAllTextAsync(json)))
            {
                var clusterInfo = report.RootElement.GetProperty("cluster");
                Assert.Equal("external", clusterInfo.GetProperty("kind").GetString());
                Assert.Equal(2, clusterInfo.GetProperty("silos").GetInt32());
                var pact = report.RootElement.GetProperty("runs").EnumerateArray().Single(r => r.GetProperty("mode").GetString() == "pact");
                // Two fresh SiloHost processes on a loaded CI host committed no PACT in a 2 s window once
                // (1 s of warm-up): the window is 3 s now, after 2 s.
                Assert.True(pact.GetProperty("committed").GetInt64() > 0, $"no PACT committed in the window\n{stdout}\n{stderr}");
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
    [InlineData("--silo-port", "--silo-port 0")]
    [InlineData("--logger", "--logger bogus")]
    [InlineData("--primary", "--primary no-port")]
    [InlineData("--clustering", "--clustering redis")] // without --redis
    [InlineData("--log-dir", "--logger file --log-dir /proc/forbidden")]
    [InlineData("--membership-timeouts", "--membership-timeouts quick")]
    [InlineData("--connection", "--connection garbage")] // the memory logger's: another logger's flag
    [InlineData("--table", "--table x")]
    [InlineData("--after-commit-journal", "--after-commit-journal /nonexistent-folder/journal.tsv")]
    [InlineData("--after-commit-journal", "--after-commit-journal /tmp")]
    [InlineData("--table", "--logger azure-table --table x!")] // not an Azure table name
    [InlineData("--advertise", "--advertise 10.9.8.7")] // dev clustering runs on loopback
    public async Task A_bad_flag_exits_2_with_one_line_naming_it(string flag, string commandLine)
    {
        var (exit, output) = await SiloHostProcess.RunToExitAsync(commandLine.Split(' '));
        Assert.Equal(2, exit);
        Assert.StartsWith($"error: {flag}", output);
        Assert.DoesNotContain("serving", output);
        Assert.DoesNotContain("   at ", output); // no stack trace
    }

    /// <summary>
    /// Issue 51: the only SiloHost SIGKILLed under load, LoadGen ran out its window and a drain on
    /// calls nobody would answer, then exited 0 with a table of commits. A run whose cluster went
    /// fails (exit 1), says which gateways went, and ends within seconds.
    /// </summary>
    [Fact]
    public async Task LoadGen_whose_only_silo_dies_fails_within_seconds_saying_the_gateways_went()
    {
        await using var silo = await SiloHostProcess.StartAsync();
        var (stdout, errorText) = (new StringWriter(), new StringWriter());
        var stderr = TextWriter.Synchronized(errorText); // the run writes from its threads while the test reads
        string Errors()
        {
            lock (stderr) // what the synchronized writer locks
            {
                return errorText.ToString();
            }
        }

        var gateway = $"127.0.0.1:{silo.GatewayPort}";
        var run = Runner.MainAsync(["smallbank", "--cluster", gateway, "--modes", "pact,act", "--duration", "60", "--warmup", "0", "--jit-settle", "0", "--pipeline", "8"], TextWriter.Synchronized(stdout), stderr, CancellationToken.None);
        await Poll.Until(() => Errors().Contains("[pact] 16 loops", StringComparison.Ordinal), "the pact mode runs");
        await Task.Delay(TimeSpan.FromSeconds(2)); // under load

        await silo.KillAsync();
        var killed = Stopwatch.StartNew();
        var exit = await run.WaitAsync(TimeSpan.FromSeconds(60));

        var errors = Errors();
        Assert.True(exit == 1, $"exit {exit}\n{errors}");
        Assert.Contains($"connected to none of its gateways ({gateway})", errors, StringComparison.Ordinal);
        Assert.Contains("[act] skipped", errors, StringComparison.Ordinal);
        Assert.DoesNotContain("   at ", errors, StringComparison.Ordinal); // no stack trace
        Assert.InRange(killed.Elapsed, TimeSpan.Zero, TimeSpan.FromSeconds(15));
    }

    /// <summary>
    /// Issue 51: a SiloHost SIGTERMed under load took Orleans' whole 30 s shutdown timeout and wrote
    /// hundreds of lines. Its coordinators' PACTs waited for a token that no longer came round; with
    /// a second silo, the actors moving there waited for the stopping silo's failover while its
    /// transactions waited on calls into them. Each stop ends within seconds, in a few lines; the
    /// survivor goes on committing.
    /// </summary>
    [Fact]
    public async Task A_SIGTERMed_silo_under_load_stops_within_seconds_in_a_few_lines_and_the_survivor_goes_on()
    {
        await using var primary = await SiloHostProcess.StartAsync();
        await using var secondary = await SiloHostProcess.StartAsync(primary);
        var errorText = new StringWriter();
        var stderr = TextWriter.Synchronized(errorText);
        long Committed()
        {
            lock (stderr)
            {
                var progress = Regex.Matches(errorText.ToString(), @"\[hybrid\] measure .* committed +([\d,]+)");
                return progress.Count == 0 ? 0 : long.Parse(progress[^1].Groups[1].Value, NumberStyles.AllowThousands, CultureInfo.InvariantCulture);
            }
        }

        var cluster = $"127.0.0.1:{primary.GatewayPort},127.0.0.1:{secondary.GatewayPort}";
        using var interrupt = new CancellationTokenSource();
        var run = Runner.MainAsync(["smallbank", "--cluster", cluster, "--modes", "hybrid", "--pact-percent", "50", "--duration", "60", "--warmup", "0", "--jit-settle", "0", "--response-timeout", "5"], TextWriter.Null, stderr, interrupt.Token);
        await Poll.Until(() => Committed() > 1_000, "the load commits on two silos");

        await StopsPromptly(secondary);
        var afterStop = Committed();
        await Poll.Until(() => Committed() > afterStop + 2_000, "the survivor goes on committing");

        await StopsPromptly(primary); // the only silo left, still under load

        // The run ends: on its own once it sees its cluster went (exit 1), or interrupted (130),
        // its calls into the silos that went ending at the 5-s response timeout. (One clean-clone
        // CI run did not see its cluster go within 60 s after these graceful stops: LoadGen's
        // concern, noted, not this test's.)
        await interrupt.CancelAsync();
        Assert.Contains(await run.WaitAsync(TimeSpan.FromSeconds(30)), new[] { ExitCodes.Failure, ExitCodes.Interrupted });

        static async Task StopsPromptly(SiloHostProcess silo)
        {
            var before = silo.Output.Length;
            var started = Stopwatch.StartNew();
            Assert.Equal(0, await silo.TerminateAsync());
            var output = silo.Output[before..]; // what it said from the SIGTERM on
            // SiloHost's bound is 3 s; past it, steps of Orleans' stop that do not take the
            // cancellation (the membership table's terminal status updates, each with its own
            // 500 ms deadline) and the process's exit: 3.2-3.8 s here beside two CPU burners,
            // 5.6 s once on a loaded CI runner.
            Assert.True(started.Elapsed < TimeSpan.FromSeconds(8), $"SIGTERM to exit took {started.Elapsed}\n{output}");
            Assert.True(output.TrimEnd().Split('\n').Length <= 4, $"a stop in a few lines:\n{output}");
            Assert.DoesNotContain("   at ", output, StringComparison.Ordinal); // no stack trace
            Assert.Contains("stopped", silo.Stdout[^1], StringComparison.Ordinal);
        }
    }

    [Fact]
    public async Task LoadGen_says_in_one_line_which_cluster_it_could_not_reach()
    {
        var started = Stopwatch.StartNew();
        var (exit, stdout, stderr) = await LoadGen("smallbank", "--cluster", "127.0.0.1:9", "--duration", "1", "--warmup", "0");
        Assert.Equal(1, exit);
        Assert.Equal("error: --cluster 127.0.0.1:9: nothing accepted a connection at 127.0.0.1:9 for 10 s (connection refused)", stderr.TrimEnd());
        Assert.Empty(stdout);
        Assert.InRange(started.Elapsed, TimeSpan.Zero, TimeSpan.FromSeconds(15));
    }

    [Theory]
    [InlineData("--silo-port")]
    [InlineData("--gateway-port")]
    public async Task A_port_in_use_is_one_line_naming_the_port_and_its_flag(string flag)
    {
        using var taken = new TcpListener(IPAddress.Loopback, 0);
        taken.Start();
        var port = ((IPEndPoint)taken.LocalEndpoint).Port;
        var other = SiloHostProcess.FreePort();
        var args = flag == "--silo-port" ? new[] { "--silo-port", $"{port}", "--gateway-port", $"{other}" } : ["--silo-port", $"{other}", "--gateway-port", $"{port}"];
        var started = Stopwatch.StartNew();
        var (exit, output) = await SiloHostProcess.RunToExitAsync(args);
        Assert.Equal(2, exit);
        Assert.Equal($"error: {flag} {port}: port {port} is in use on 127.0.0.1; give another port.", output.TrimEnd());
        Assert.InRange(started.Elapsed, TimeSpan.Zero, TimeSpan.FromSeconds(5));
    }

    // Each case below waits out a bound of 10-12 s, mostly idle: the cases of a test run at once.
    [Fact]
    public Task A_service_nobody_runs_is_one_line_naming_its_flag_within_15_s() =>
        Task.WhenAll(new[] { "--primary", "--redis", "--connection" }.Select(NobodyRuns));

    private static async Task NobodyRuns(string flag)
    {
        var nobody = $"127.0.0.1:{SiloHostProcess.FreePort()}";
        string[] args = flag switch
        {
            "--primary" => ["--primary", nobody],
            "--redis" => ["--clustering", "redis", "--redis", nobody],
            _ => ["--logger", "azure-table", "--connection", $"DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey={Convert.ToBase64String(new byte[64])};TableEndpoint=http://{nobody}/devstoreaccount1;"],
        };
        var started = Stopwatch.StartNew();
        var (exit, output) = await SiloHostProcess.RunToExitAsync([.. args, "--silo-port", $"{SiloHostProcess.FreePort()}", "--gateway-port", $"{SiloHostProcess.FreePort()}"]);
        Assert.Equal(1, exit);
        var line = Assert.Single(output.TrimEnd().Split('\n'));
        Assert.StartsWith($"error: {flag}", line);
        Assert.Contains(nobody, line);
        Assert.InRange(started.Elapsed, TimeSpan.Zero, TimeSpan.FromSeconds(15));
    }

    /// <summary>
    /// Issue 51: --primary at something that accepts connections but is no silo port (the primary's
    /// gateway port, a server that never speaks Orleans) waited minutes for the join; killed, it
    /// said only "A task was canceled".
    /// </summary>
    [Fact]
    public async Task A_primary_that_is_no_silo_port_is_one_line_naming_the_flag_within_seconds()
    {
        await using var primary = await SiloHostProcess.StartAsync();
        await using var mute = new MuteServer();
        await Task.WhenAll(JoinsNoSilo($"127.0.0.1:{primary.GatewayPort}"), JoinsNoSilo(mute.Endpoint)); // the primary's gateway port, a server that accepts and says nothing
    }

    private static async Task JoinsNoSilo(string target)
    {
        var started = Stopwatch.StartNew();
        var (exit, output) = await SiloHostProcess.RunToExitAsync("--primary", target, "--silo-port", $"{SiloHostProcess.FreePort()}", "--gateway-port", $"{SiloHostProcess.FreePort()}");

        Assert.Equal(1, exit);
        var line = Assert.Single(output.TrimEnd().Split('\n'));
        Assert.StartsWith($"error: --primary {target}: no silo there let this one join", line, StringComparison.Ordinal);
        Assert.InRange(started.Elapsed, TimeSpan.Zero, TimeSpan.FromSeconds(20)); // 12 s of patience, and the process's start
    }

    /// <summary>
    /// Issue 51: LoadGen --cluster at a silo's silo port (not its gateway port) waited for ever
    /// with no output; at a server that is no gateway it printed a whole exception.
    /// </summary>
    [Fact]
    public async Task LoadGen_at_something_that_is_no_gateway_is_one_line_naming_the_flag_within_seconds()
    {
        await using var silo = await SiloHostProcess.StartAsync();
        await using var mute = new MuteServer();
        await Task.WhenAll(ConnectsToNoGateway($"127.0.0.1:{silo.SiloPort}"), ConnectsToNoGateway(mute.Endpoint)); // a SiloHost's silo port, a server that accepts and says nothing
    }

    private static async Task ConnectsToNoGateway(string target)
    {
        var started = Stopwatch.StartNew();
        var (exit, stdout, stderr) = await LoadGen("smallbank", "--cluster", target, "--duration", "1", "--warmup", "0");

        Assert.Equal(1, exit);
        var line = Assert.Single(stderr.TrimEnd().Split('\n'));
        Assert.StartsWith($"error: --cluster {target}: could not connect", line, StringComparison.Ordinal);
        Assert.Empty(stdout);
        Assert.InRange(started.Elapsed, TimeSpan.Zero, TimeSpan.FromSeconds(20));
    }

    [Fact]
    public async Task A_connection_string_that_does_not_parse_is_a_bad_flag()
    {
        var started = Stopwatch.StartNew();
        var (exit, output) = await SiloHostProcess.RunToExitAsync("--logger", "azure-table", "--connection", "garbage");
        Assert.Equal(2, exit);
        Assert.StartsWith("error: --connection: not an Azure storage connection string", output);
        Assert.InRange(started.Elapsed, TimeSpan.Zero, TimeSpan.FromSeconds(5));
        (exit, _, var stderr) = await LoadGen("smallbank", "--logger", "azure-table", "--connection", "garbage");
        Assert.Equal(2, exit);
        Assert.StartsWith("error: --connection: not an Azure storage connection string", stderr);
    }

    private static async Task<(int Exit, string Stdout, string Stderr)> LoadGen(params string[] args)
    {
        var (stdout, stderr) = (new StringWriter(), new StringWriter());
        var exit = await Runner.MainAsync(args, stdout, stderr, CancellationToken.None);
        return (exit, stdout.ToString(), stderr.ToString());
    }
}

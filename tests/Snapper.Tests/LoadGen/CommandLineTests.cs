using Snapper.Tests.Infrastructure;
using System.Text.RegularExpressions;
using Snapper.LoadGen;
using Snapper.LoadGen.Measurement;
using Snapper.LoadGen.Options;
using Snapper.LoadGen.Workloads;

namespace Snapper.Tests.LoadGen;

/// <summary>
/// LoadGen's command line: help generated from the definitions that parse, one-line usage errors
/// with a suggestion, problems caught before any load, README's flag table kept true.
/// </summary>
public sealed partial class CommandLineTests
{
    public static TheoryData<string> Subcommands() => [.. LoadGenCommandLine.Flags().Keys];

    [Theory]
    [MemberData(nameof(Subcommands))]
    public async Task Help_lists_every_flag_the_subcommand_accepts(string subcommand)
    {
        var stdout = new StringWriter();
        Assert.Equal(0, await Runner.MainAsync([subcommand, "--help"], stdout, new StringWriter(), CancellationToken.None));

        var listed = FlagInHelp().Matches(stdout.ToString()).Select(m => m.Groups[1].Value).Where(f => f != "--help").ToHashSet();
        Assert.Equal(LoadGenCommandLine.Flags()[subcommand].Order(), listed.Order());
    }

    [Fact]
    public async Task A_misspelt_flag_exits_2_with_one_line_suggesting_the_flag()
    {
        var stderr = new StringWriter();
        var exit = await Runner.MainAsync(["smallbank", "--duraton", "5"], new StringWriter(), stderr, CancellationToken.None);

        Assert.Equal(ExitCodes.Usage, exit);
        var errors = Lines(stderr).Where(l => l.StartsWith("error:", StringComparison.Ordinal)).ToList();
        var error = Assert.Single(errors);
        Assert.Contains("--duraton", error, StringComparison.Ordinal);
        Assert.Contains("did you mean --duration?", error, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("/proc/forbidden")]
    [InlineData(null)] // a path that is a regular file
    public async Task A_log_directory_that_cannot_be_written_fails_before_any_load_naming_it(string? directory)
    {
        var file = directory is null ? Path.GetTempFileName() : null;
        try
        {
            var path = directory ?? file!;
            var (stdout, stderr) = (new StringWriter(), new StringWriter());
            var exit = await Runner.MainAsync(["smallbank", "--logger", "file", "--log-dir", path, "--duration", "10"], stdout, stderr, CancellationToken.None);

            Assert.NotEqual(ExitCodes.Ok, exit);
            var line = Assert.Single(Lines(stderr));
            Assert.StartsWith($"error: --log-dir {path}: ", line, StringComparison.Ordinal);
            if (directory is null)
            {
                Assert.EndsWith("it is a file, not a directory", line, StringComparison.Ordinal);
            }

            Assert.Empty(stdout.ToString()); // no silo started, nothing measured
        }
        finally
        {
            if (file is not null)
            {
                File.Delete(file);
            }
        }
    }

    [Theory]
    [InlineData("--nemesis", "listappend --nemesis deactivate,bogus")]
    [InlineData("--nemesis", "smallbank --nemesis deactivate,,migrate")]
    [InlineData("--nemesis", "tpcc --nemesis migrate,migrate")]
    [InlineData("--nemesis-rate", "smallbank --nemesis deactivate --nemesis-rate 0")]
    [InlineData("--nemesis-rate", "listappend --nemesis migrate --nemesis-rate -2")]
    [InlineData("--nemesis-rate", "listappend --nemesis delay --nemesis-rate 3")]
    [InlineData("--nemesis delay", "tpcc --nemesis deactivate,delay --cluster 127.0.0.1:30000")]
    [InlineData("--nemesis timeout", "listappend --nemesis timeout --cluster 127.0.0.1:30000")]
    [InlineData("loopback", "smallbank --nemesis deactivate --cluster 192.0.2.1:30000")]
    [InlineData("--json", "smallbank --json /proc/forbidden/report.json")] // outputs are probed before the load,
    [InlineData("--json", "smallbank --json /tmp")] // not found unwritable after it
    [InlineData("--history", "listappend --history /proc/forbidden/h.jsonl")]
    [InlineData("--dump", "listappend --dump /nonexistent-folder/d.json")]
    [InlineData("--out", "figures --out /proc")]
    [InlineData("--log-dir", "smallbank --log-dir /tmp/snapper-unused-log-dir")] // a flag that would do nothing
    [InlineData("--log-dir", "listappend --logger memory --log-dir /tmp/snapper-unused-log-dir")]
    [InlineData("--orleans-lock-timeout", "smallbank --orleans-lock-timeout 0 --modes orleans-txn")]
    [InlineData("--orleans-lock-timeout", "smallbank --orleans-lock-timeout 200 --modes pact,act")]
    [InlineData("--orleans-lock-timeout", "smallbank --orleans-lock-timeout 200 --modes orleans-txn --cluster 127.0.0.1:30000")]
    [InlineData("--orleans-lock-timeout", "tpcc --orleans-lock-timeout 200")]
    [InlineData("--logger", "smallbank --cluster 127.0.0.1:30000 --logger file --log-dir /tmp/snapper-unused-log-dir")] // the silos' own flags
    [InlineData("--log-delay-ms", "listappend --cluster 127.0.0.1:30000 --log-delay-ms 5")]
    [InlineData("--checkpoint-interval", "tpcc --cluster 127.0.0.1:30000 --checkpoint-interval 0")]
    [InlineData("--response-timeout", "listappend --response-timeout 10")] // the --cluster client's
    [InlineData("--response-timeout", "listappend --cluster 127.0.0.1:30000 --response-timeout 0")]
    [InlineData("--connection", "smallbank --connection DefaultEndpointsProtocol=http;AccountName=a;AccountKey=YQ==;TableEndpoint=http://127.0.0.1:1/a;")] // without --logger azure-table
    [InlineData("--duration", "idle --duration 1e99")] // past what a timer can wait: an overflow at the end
    [InlineData("--duration", "idle --duration 1e7")]
    [InlineData("--duration", "figures --duration 1e9")]
    [InlineData("--actors", "smallbank --actors 2147483647")] // out of memory
    [InlineData("--actors", "figures --actors 2147483647")]
    [InlineData("--actors", "figures --actors 3")] // its experiments need 16 distinct accounts a transaction: it ran on, silent
    [InlineData("--warehouses", "tpcc --warehouses 100000")] // gigabytes loading before a line
    [InlineData("--history", "check --history /tmp --dump /tmp/snapper-no-dump.json")] // a folder: "access denied"
    [InlineData("--dump", "check --history /tmp/snapper-no-history.jsonl --dump /tmp")]
    [InlineData("--journal", "check --history /tmp/snapper-no-history.jsonl --dump /tmp/snapper-no-dump.json --journal /tmp")]
    [InlineData("--after-commit", "smallbank --after-commit twice")]
    [InlineData("--after-commit", "tpcc --after-commit")] // not a flag of tpcc's
    public async Task Bad_flags_exit_2_with_one_error_line_naming_the_flag_before_any_load(string named, string commandLine)
    {
        var (stdout, stderr) = (new StringWriter(), new StringWriter());
        var exit = await Runner.MainAsync(commandLine.Split(' '), stdout, stderr, CancellationToken.None);

        Assert.Equal(ExitCodes.Usage, exit);
        var error = Assert.Single(Lines(stderr), l => l.StartsWith("error:", StringComparison.Ordinal));
        Assert.Contains(named, error, StringComparison.Ordinal);
        Assert.DoesNotContain(Lines(stderr), l => l.StartsWith("at ", StringComparison.Ordinal)); // no stack trace
        Assert.Empty(stdout.ToString()); // no cluster started or reached, nothing measured
    }

    [Fact]
    public void Deactivation_and_migration_requests_may_go_to_a_cluster_on_loopback()
    {
        var options = new LoadGenOptions { Workload = "listappend", Modes = ["pact"], Cluster = ["127.0.0.1:30000", "localhost:30001"], Nemesis = ["deactivate", "migrate"], NemesisRate = 50 };

        LoadGenValidation.Validate(options);
        Assert.Throws<UsageException>(() => LoadGenValidation.Validate(options with { Nemesis = ["migrate", "delay"] }));
    }

    [Fact]
    public void Every_flag_in_READMEs_table_is_accepted_and_every_workload_flag_is_in_it()
    {
        var readme = File.ReadAllText(Path.Combine(RepositoryPaths.Root(), "README.md"));
        var inTable = FlagInReadmeTable().Matches(readme).Select(m => m.Groups[1].Value).ToHashSet();
        Assert.NotEmpty(inTable);

        var flags = LoadGenCommandLine.Flags();
        var accepted = flags.Values.SelectMany(f => f).ToHashSet();
        Assert.Empty(inTable.Except(accepted));
        var workloadFlags = new[] { LoadGenCommandLine.SmallBank, LoadGenCommandLine.ListAppend, LoadGenCommandLine.TpcC }.SelectMany(w => flags[w]);
        Assert.Empty(workloadFlags.Except(inTable));
    }

    [Fact]
    public async Task A_mode_in_which_every_transaction_fails_stops_after_a_few_seconds_saying_why()
    {
        var options = new LoadGenOptions { Actors = 100, Clients = 1, Pipeline = 4, WarmupSeconds = 0, DurationSeconds = 60 };
        var driver = new LoadDriver(options, ActorPicker.Create(options));

        var result = await driver.RunAsync("pact", async _ =>
        {
            await Task.Yield();
            throw new TransactionAbortedException(AbortReason.Failure, "log storage is down");
        }, CancellationToken.None);

        Assert.False(result.Completed);
        Assert.Equal(0, result.Committed);
        Assert.NotNull(driver.StoppedByFailures);
        Assert.Contains("log storage is down", driver.StoppedByFailures, StringComparison.Ordinal);
        Assert.True(result.MeasuredSeconds < options.DurationSeconds / 2, $"measured {result.MeasuredSeconds} s of {options.DurationSeconds}");
    }

    [Fact]
    public async Task A_mode_whose_failures_come_with_ordinary_aborts_runs_its_whole_window()
    {
        var options = new LoadGenOptions { Actors = 100, Clients = 1, Pipeline = 4, WarmupSeconds = 0, DurationSeconds = LoadDriver.FailingSecondsToStop + 2 };
        var driver = new LoadDriver(options, ActorPicker.Create(options));
        var attempts = 0;

        var result = await driver.RunAsync("pact", async _ =>
        {
            await Task.Yield();
            throw Interlocked.Increment(ref attempts) % 2 == 0
                ? new TransactionAbortedException(AbortReason.Failure, "log storage is down")
                : new TransactionAbortedException(AbortReason.WaitDie, "younger than the holder");
        }, CancellationToken.None);

        Assert.Null(driver.StoppedByFailures);
        Assert.True(result.Completed);
        Assert.Equal(0, result.Committed);
    }

    private static List<string> Lines(StringWriter writer) =>
        [.. writer.ToString().Split('\n', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries)];

    // "  --duration <seconds>  Seconds measured per mode." in System.CommandLine's help.
    [GeneratedRegex(@"^\s+(?:-\S+, )*(--[a-z-]+)", RegexOptions.Multiline)]
    private static partial Regex FlagInHelp();

    // "| `--duration S` | ..." rows of README's flag table.
    [GeneratedRegex(@"^\| `(--[a-z-]+)", RegexOptions.Multiline)]
    private static partial Regex FlagInReadmeTable();
}

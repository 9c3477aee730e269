using Snapper.LoadGen;
using Snapper.Logging.FileStorage;
using Snapper.Tests.Infrastructure;
using Snapper.Tests.Logging.FileStorage;
using static Snapper.Tests.Infrastructure.LogStorageContents;
using static Snapper.Tests.Logging.FileStorage.WalTestData;

namespace Snapper.Tests.Regression;

/// <summary>
/// Issue 49, defect 7: nothing stopped a second writer on a file log. A second SiloHost with the
/// same <c>--name</c> and <c>--log-dir</c> as a running one started and served, both appended to
/// the same log, and the survivor then found its segment corrupt. Now the first writer holds the
/// log's lock (released by the OS when it dies), taken as the silo starts, and a second writer
/// fails at once: a second silo refuses to start with one line naming the log.
/// </summary>
public sealed class FileLogSingleWriterRegressionTests : IDisposable
{
    private readonly TempDirectory temp = new();

    public void Dispose() => temp.Dispose();

    [Fact]
    public async Task A_second_storage_cannot_write_a_log_another_writes_but_can_read_it_and_takes_it_once_the_first_lets_go()
    {
        var options = new FileLogStorageOptions { Directory = temp.Path };
        var first = new FileLogStorage(options);
        await first.AppendAsync("log", [Payload(0, 0)], CancellationToken.None);

        await using var second = new FileLogStorage(options);
        var held = await Assert.ThrowsAnyAsync<IOException>(() => second.AppendAsync("log", [Payload(1, 0)], CancellationToken.None));
        Assert.Contains("'log'", held.Message);
        Assert.Contains($"'{temp.Path}' is held by another writer", held.Message);
        await Assert.ThrowsAnyAsync<IOException>(() => second.SealAsync("log", CancellationToken.None));

        // Readers take no lock: silos read each other's logs.
        Assert.Equal([Payload(0, 0)], await ReadAllAsync(second, "log"));

        await first.DisposeAsync();
        await second.AppendAsync("log", [Payload(1, 0)], CancellationToken.None);
        Assert.Equal([Payload(0, 0), Payload(1, 0)], await ReadAllAsync(second, "log"));
    }

    [Fact]
    public async Task LoadGen_on_a_log_directory_a_silo_holds_refuses_to_start_in_one_line()
    {
        await using var holder = new FileLogStorage(new FileLogStorageOptions { Directory = temp.Path });
        await holder.AppendAsync("snapper-silo0-0", [Payload(0, 0)], CancellationToken.None);

        var (stdout, stderr) = (new StringWriter(), new StringWriter());
        var exit = await Runner.MainAsync(
            ["smallbank", "--modes", "pact", "--actors", "10", "--logger", "file", "--log-dir", temp.Path, "--duration", "1", "--warmup", "0", "--jit-settle", "0"],
            stdout, stderr, CancellationToken.None);

        Assert.Equal(ExitCodes.Failure, exit);
        var error = Assert.Single(stderr.ToString().Split('\n'), l => l.StartsWith("error:", StringComparison.Ordinal));
        Assert.Contains($"log snapper-silo0-0 in {temp.Path} is held by another process; is another LoadGen or SiloHost running on --log-dir {temp.Path}?", error);
        Assert.DoesNotContain("   at ", stderr.ToString());
    }

    [Fact]
    public async Task A_second_SiloHost_with_the_same_name_and_log_dir_refuses_to_start_until_the_first_is_gone()
    {
        string[] twin = ["--name", "twin", "--logger", "file", "--log-dir", temp.Path];
        var first = await SiloHostProcess.StartAsync(null, twin);
        try
        {
            var (exit, output) = await SiloHostProcess.RunToExitAsync(
                [.. twin, "--silo-port", $"{SiloHostProcess.FreePort()}", "--gateway-port", $"{SiloHostProcess.FreePort()}"]);
            Assert.Equal(1, exit);
            Assert.Equal(
                $"error: silo twin failed to start: log snapper-twin-0 in {temp.Path} is held by another process; is a silo with --name twin already running? (--verbose for its log)",
                Assert.Single(output.TrimEnd().Split('\n')));
        }
        finally
        {
            await first.DisposeAsync(); // killed: the OS lets go of its lock
        }

        await using var again = await SiloHostProcess.StartAsync(null, twin);
        Assert.Equal(0, await again.TerminateAsync());
    }
}

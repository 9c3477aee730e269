using Snapper.LoadGen;
using Snapper.Logging.FileStorage;
using Snapper.Tests.Logging.FileStorage;
using static Snapper.Tests.Infrastructure.LogStorageContents;
using static Snapper.Tests.Logging.FileStorage.WalTestData;

namespace Snapper.Tests.Regression;

/// <summary>
/// Issue 49, defect 6: the file log took any bad frame for a torn tail. One byte flipped in the
/// middle of a segment cut everything after it (tens of thousands of committed appends lost, the
/// silo started as if nothing had happened), a segment replaced by random bytes was cut whole (tids
/// started again at 0), and readers of other silos' logs stopped silently at the damage. Now only a
/// torn last group is cut; damage a crash cannot explain refuses the start with one line naming the
/// segment and offset, and <c>salvage</c> keeps the records before it and moves the rest aside.
/// </summary>
public sealed class FileLogCorruptionRegressionTests : IDisposable
{
    private const string Log = "log";
    private const int RecordSize = 100;
    private const int FrameSize = RecordSize + 8;

    private readonly TempDirectory temp = new();

    public void Dispose() => temp.Dispose();

    private string Segment => Path.Combine(temp.Path, Log, "0000000000.wal");

    [Fact]
    public async Task A_byte_flipped_mid_segment_is_refused_by_its_writer_and_its_readers_and_nothing_is_cut()
    {
        // Forty groups of three records; a byte of the fourteenth frame (the fifth group) flipped.
        await using (var storage = new FileLogStorage(new FileLogStorageOptions { Directory = temp.Path }))
        {
            for (var g = 0; g < 40; g++)
            {
                await storage.AppendAsync(Log, [Payload(g, 0, RecordSize), Payload(g, 1, RecordSize), Payload(g, 2, RecordSize)], CancellationToken.None);
            }
        }

        const int damaged = 13 * FrameSize;
        FlipByte(Segment, damaged + 8 + 30);
        var before = await File.ReadAllBytesAsync(Segment);

        // A silo reading another silo's log (recovery, failover) does not stop there silently...
        await using (var reader = new FileLogStorage(new FileLogStorageOptions { Directory = temp.Path }))
        {
            AssertNamesTheDamage(await Assert.ThrowsAsync<InvalidDataException>(() => ReadAllAsync(reader, Log)), damaged);
        }

        // ...and its own writer does not cut it off.
        await using (var writer = new FileLogStorage(new FileLogStorageOptions { Directory = temp.Path }))
        {
            AssertNamesTheDamage(await Assert.ThrowsAsync<InvalidDataException>(() => writer.AppendAsync(Log, [Payload(99, 0, RecordSize)], CancellationToken.None)), damaged);
        }

        Assert.Equal(before, await File.ReadAllBytesAsync(Segment));
    }

    [Fact]
    public async Task A_segment_of_random_bytes_is_refused_not_cut_whole()
    {
        await using (var storage = new FileLogStorage(new FileLogStorageOptions { Directory = temp.Path }))
        {
            await AppendSinglesAsync(storage, Log, 0, 10, RecordSize);
        }

        var garbage = new byte[new FileInfo(Segment).Length];
        new Random(49).NextBytes(garbage);
        await File.WriteAllBytesAsync(Segment, garbage);

        await using var reopened = new FileLogStorage(new FileLogStorageOptions { Directory = temp.Path });
        AssertNamesTheDamage(await Assert.ThrowsAsync<InvalidDataException>(() => reopened.AppendAsync(Log, [Payload(99, 0, RecordSize)], CancellationToken.None)), 0);
        Assert.Equal(garbage, await File.ReadAllBytesAsync(Segment));
    }

    [Fact]
    public async Task LoadGen_refuses_a_log_with_a_flipped_byte_in_one_line_and_salvage_keeps_the_records_before_it()
    {
        // The commands: a run, a byte flipped a tenth of the way into its log, the same run again.
        string[] run = ["listappend", "--modes", "pact", "--actors", "8", "--logger", "file", "--log-dir", temp.Path, "--duration", "1", "--warmup", "0", "--jit-settle", "0"];
        var (exit, stdout, stderr) = await LoadGenAsync(run);
        Assert.True(exit == 0, $"exit {exit}\n{stdout}\n{stderr}");

        var segment = Path.Combine(temp.Path, "snapper-silo0-0", "0000000000.wal");
        var starts = FrameStarts(segment);
        var damaged = starts.First(s => s >= starts[^1] / 10);
        FlipByte(segment, damaged + 8 + 1);
        var before = await File.ReadAllBytesAsync(segment);

        (exit, stdout, stderr) = await LoadGenAsync(run);
        Assert.Equal(ExitCodes.Failure, exit);
        var error = Assert.Single(stderr.Split('\n'), l => l.StartsWith("error:", StringComparison.Ordinal));
        Assert.Contains($"segment '{segment}' is corrupt at offset {damaged}", error);
        Assert.Contains($"salvage --log-dir {temp.Path}", error);
        Assert.DoesNotContain("   at ", stderr); // no stack trace without --verbose
        Assert.Equal(before, await File.ReadAllBytesAsync(segment));

        (exit, stdout, stderr) = await LoadGenAsync(["salvage", "--log-dir", temp.Path]);
        Assert.True(exit == 0, $"exit {exit}\n{stdout}\n{stderr}");
        var kept = starts.IndexOf(damaged);
        Assert.Contains($"snapper-silo0-0: corrupt at offset {damaged} of {segment}", stdout);
        Assert.Contains($"kept {kept:N0} record(s) before it", stdout);
        Assert.Equal(damaged, new FileInfo(segment).Length);
        Assert.Equal(before, await File.ReadAllBytesAsync(segment + ".corrupt"));

        (exit, stdout, stderr) = await LoadGenAsync(run);
        Assert.True(exit == 0, $"exit {exit}\n{stdout}\n{stderr}");
    }

    /// <summary>
    /// Issue 51: LoadGen on a log folder with a segment missing between two others wrote 45 lines
    /// and 37 frames; on one whose silo log is a regular file, 36 lines, and with --duration 1
    /// exit 0 with every transaction aborted. Each is one error line naming the damage, exit 1,
    /// before any load.
    /// </summary>
    [Theory]
    [InlineData("a segment missing between two", "is missing segment sequence 1 (0000000001.wal)")]
    [InlineData("a regular file for the silo's log", "could not create directory")]
    public async Task LoadGen_names_a_damaged_log_folder_in_one_line_before_any_load(string damage, string said)
    {
        string[] run = ["smallbank", "--modes", "pact", "--actors", "100", "--logger", "file", "--log-dir", temp.Path, "--duration", "1", "--warmup", "0", "--jit-settle", "0"];
        var silo = Path.Combine(temp.Path, "snapper-silo0-0");
        if (damage.StartsWith("a segment", StringComparison.Ordinal))
        {
            var (written, _, writing) = await LoadGenAsync(run);
            Assert.True(written == 0, writing);
            File.Copy(Path.Combine(silo, "0000000000.wal"), Path.Combine(silo, "0000000002.wal"));
        }
        else
        {
            await File.WriteAllTextAsync(silo, "not a folder");
        }

        var (exit, stdout, stderr) = await LoadGenAsync(run);

        Assert.Equal(ExitCodes.Failure, exit);
        var error = Assert.Single(stderr.Split('\n'), l => l.StartsWith("error:", StringComparison.Ordinal));
        Assert.Contains(said, error, StringComparison.Ordinal);
        Assert.True(stderr.Split('\n', StringSplitOptions.RemoveEmptyEntries).Length <= 3, stderr);
        Assert.DoesNotContain("   at ", stderr, StringComparison.Ordinal); // no stack trace without --verbose
        Assert.Empty(stdout); // nothing measured
    }

    private void AssertNamesTheDamage(InvalidDataException error, long offset)
    {
        Assert.Contains($"segment '{Segment}' is corrupt at offset {offset}", error.Message);
        Assert.Contains("Nothing was cut", error.Message);
        Assert.DoesNotContain('\n', error.Message);
    }

    private static List<long> FrameStarts(string path)
    {
        using var stream = File.OpenRead(path);
        using var reader = new FrameReader(stream, stream.Length);
        var starts = new List<long>();
        while (reader.NextAsync(CancellationToken.None).AsTask().GetAwaiter().GetResult())
        {
            starts.Add(reader.FrameStart);
        }

        return starts;
    }


    private static async Task<(int Exit, string Stdout, string Stderr)> LoadGenAsync(params string[] args)
    {
        var (stdout, stderr) = (new StringWriter(), new StringWriter());
        var exit = await Runner.MainAsync(args, stdout, stderr, CancellationToken.None);
        return (exit, stdout.ToString(), stderr.ToString());
    }
}

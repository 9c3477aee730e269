using Microsoft.Extensions.Logging;
using Snapper.Logging.FileStorage;
using static Snapper.Tests.Infrastructure.LogStorageContents;
using static Snapper.Tests.Logging.FileStorage.WalTestData;

namespace Snapper.Tests.Logging.FileStorage;

public sealed class TailRecoveryTests : IDisposable
{
    // Three groups of two 100-byte records: six 108-byte frames, the last one starting at 540.
    private const int RecordSize = 100;
    private const int FrameSize = RecordSize + 8;
    private const int LastFrame = 5 * FrameSize;

    private readonly TempDirectory temp = new();
    private readonly RecordingLogger<FileLogStorage> diagnostics = new();

    public void Dispose() => temp.Dispose();

    private string Segment => Path.Combine(temp.Path, "log", "0000000000.wal");

    [Fact]
    public async Task A_torn_tail_is_cut_at_reopen_and_appending_continues_after_it()
    {
        var written = await WriteSixRecordsAsync();
        using (var file = new FileStream(Segment, FileMode.Open, FileAccess.Write))
        {
            file.SetLength(LastFrame + 50); // a crash mid-payload of the last frame
        }

        await AssertCutAndAppendAsync(written, cutBytes: 50);
    }

    [Fact]
    public async Task A_corrupt_last_frame_is_cut_at_reopen_and_appending_continues_after_it()
    {
        var written = await WriteSixRecordsAsync();
        using (var file = new FileStream(Segment, FileMode.Open, FileAccess.ReadWrite))
        {
            file.Position = LastFrame + 8 + 20;
            var value = file.ReadByte();
            file.Position = LastFrame + 8 + 20;
            file.WriteByte((byte)~value);
        }

        var warning = await AssertCutAndAppendAsync(written, cutBytes: FrameSize);
        Assert.Contains("checksum", warning);
    }

    [Fact]
    public async Task A_zero_filled_tail_is_cut_at_reopen()
    {
        var written = await WriteSixRecordsAsync();
        using (var file = new FileStream(Segment, FileMode.Append, FileAccess.Write))
        {
            // What a file system may leave after a crash: the size grew, the data never landed.
            file.Write(new byte[4096]);
        }

        await using var reopened = new FileLogStorage(new FileLogStorageOptions { Directory = temp.Path }, diagnostics);
        Assert.Equal(written, await ReadAllAsync(reopened, "log"));
        Assert.Equal(6 * FrameSize + 4096, new FileInfo(Segment).Length); // reading changes nothing

        await reopened.AppendAsync("log", [Payload(9, 9, RecordSize)], CancellationToken.None); // the writer's open cuts it
        Assert.Equal(7 * FrameSize, new FileInfo(Segment).Length);
        Assert.Contains(diagnostics.Entries, e => e.Level == LogLevel.Warning && e.Message.Contains("zero"));
    }

    [Fact]
    public async Task An_intact_log_is_not_cut_and_logs_no_warning()
    {
        var written = await WriteSixRecordsAsync();
        await using var reopened = new FileLogStorage(new FileLogStorageOptions { Directory = temp.Path }, diagnostics);
        Assert.Equal(written, await ReadAllAsync(reopened, "log"));
        Assert.Equal(6 * FrameSize, new FileInfo(Segment).Length);
        Assert.DoesNotContain(diagnostics.Entries, e => e.Level >= LogLevel.Warning);
    }

    private async Task<List<byte[]>> WriteSixRecordsAsync()
    {
        var written = new List<byte[]>();
        await using var storage = new FileLogStorage(new FileLogStorageOptions { Directory = temp.Path });
        for (var g = 0; g < 3; g++)
        {
            byte[][] group = [Payload(g, 0, RecordSize), Payload(g, 1, RecordSize)];
            await storage.AppendAsync("log", [group[0], group[1]], CancellationToken.None);
            written.AddRange(group);
        }

        Assert.Equal(6 * FrameSize, new FileInfo(Segment).Length);
        return written;
    }

    // Reopens: a read returns the survivors and changes nothing (another silo may own the log);
    // the first append cuts the last frame, reports it, and writes after the survivors, which read
    // back in this storage and in the next. Returns the warning.
    private async Task<string> AssertCutAndAppendAsync(List<byte[]> written, int cutBytes)
    {
        var survivors = written[..5];
        var extra = Payload(9, 9, RecordSize);
        string warning;
        await using (var reopened = new FileLogStorage(new FileLogStorageOptions { Directory = temp.Path }, diagnostics))
        {
            var before = new FileInfo(Segment).Length;
            Assert.Equal(survivors, await ReadAllAsync(reopened, "log"));
            Assert.Equal(before, new FileInfo(Segment).Length);
            Assert.DoesNotContain(diagnostics.Entries, e => e.Level == LogLevel.Warning);

            await reopened.AppendAsync("log", [extra], CancellationToken.None);
            Assert.Equal(LastFrame + FrameSize, new FileInfo(Segment).Length);
            warning = Assert.Single(diagnostics.Entries, e => e.Level == LogLevel.Warning).Message;
            Assert.Contains(Segment, warning);
            Assert.Contains($"offset {LastFrame}", warning);
            Assert.Contains($"cut {cutBytes} byte(s)", warning);
            Assert.Equal([.. survivors, extra], await ReadAllAsync(reopened, "log"));
        }

        await using var again = new FileLogStorage(new FileLogStorageOptions { Directory = temp.Path }, diagnostics);
        Assert.Equal([.. survivors, extra], await ReadAllAsync(again, "log"));
        Assert.Single(diagnostics.Entries, e => e.Level == LogLevel.Warning); // nothing more to cut
        return warning;
    }
}

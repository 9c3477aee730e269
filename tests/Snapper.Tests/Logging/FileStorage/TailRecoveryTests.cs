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
    public async Task A_flipped_byte_in_the_last_frame_with_no_sign_of_an_unfinished_write_is_refused_and_nothing_is_cut()
    {
        // Was cut as a torn tail; a crash leaves a sector unwritten (zeros) or the file short, never a
        // changed byte in a frame that is all there, so this is corruption of an acknowledged group.
        var written = await WriteSixRecordsAsync(preallocation: 0);
        using (var file = new FileStream(Segment, FileMode.Open, FileAccess.ReadWrite))
        {
            file.Position = LastFrame + 8 + 20;
            var value = file.ReadByte();
            file.Position = LastFrame + 8 + 20;
            file.WriteByte((byte)~value);
        }

        var before = await File.ReadAllBytesAsync(Segment);
        await using var reopened = new FileLogStorage(new FileLogStorageOptions { Directory = temp.Path }, diagnostics);
        var read = await Assert.ThrowsAsync<InvalidDataException>(() => ReadAllAsync(reopened, "log"));
        var append = await Assert.ThrowsAsync<InvalidDataException>(() => reopened.AppendAsync("log", [Payload(9, 9, RecordSize)], CancellationToken.None));
        foreach (var error in new[] { read, append })
        {
            Assert.Contains(Segment, error.Message);
            Assert.Contains($"corrupt at offset {LastFrame}", error.Message);
            Assert.Contains("checksum mismatch", error.Message);
            Assert.Equal(Segment, error.Data[FileLogStorage.DamagedSegmentKey]);
        }

        Assert.Equal(before, await File.ReadAllBytesAsync(Segment));
        Assert.DoesNotContain(diagnostics.Entries, e => e.Level >= LogLevel.Warning);
        Assert.Equal(6, written.Count);
    }

    [Fact]
    public async Task A_torn_last_group_whose_later_frames_landed_past_an_unwritten_sector_is_cut_at_the_first_bad_frame()
    {
        // Eight 208-byte frames from offset 648: the sector at 1024 never landed, the frames from
        // 1688 on (the group's end among them) did.
        var written = await WriteSixRecordsAsync();
        await using (var storage = new FileLogStorage(new FileLogStorageOptions { Directory = temp.Path }))
        {
            await storage.AppendAsync("log", [.. Enumerable.Range(0, 8).Select(i => (ReadOnlyMemory<byte>)Payload(7, i, 200))], CancellationToken.None);
        }

        using (var file = new FileStream(Segment, FileMode.Open, FileAccess.Write))
        {
            file.Position = 1024;
            file.Write(new byte[512]);
        }

        await using var reopened = new FileLogStorage(new FileLogStorageOptions { Directory = temp.Path }, diagnostics);
        await reopened.AppendAsync("log", [Payload(9, 9, RecordSize)], CancellationToken.None);
        var warning = Assert.Single(diagnostics.Entries, e => e.Level == LogLevel.Warning).Message;
        Assert.Contains("offset 856", warning); // the group's second frame, the first the hole reaches
        Assert.Equal([.. written, Payload(7, 0, 200), Payload(9, 9, RecordSize)], await ReadAllAsync(reopened, "log"));
    }

    [Fact]
    public async Task Damage_with_a_later_group_after_it_is_refused_even_where_a_sector_reads_as_zeros()
    {
        // The second group's first frame holds sectors of zeros (a state of zeros, say) and a
        // flipped byte: it could pass for a torn write, but that group's end and a third group follow.
        await using (var storage = new FileLogStorage(new FileLogStorageOptions { Directory = temp.Path, PreallocationBytes = 0 }))
        {
            await storage.AppendAsync("log", [Payload(0, 0, RecordSize)], CancellationToken.None);
            await storage.AppendAsync("log", [new byte[2048], Payload(1, 1, RecordSize)], CancellationToken.None);
            await storage.AppendAsync("log", [Payload(2, 0, RecordSize)], CancellationToken.None);
        }

        var damaged = FrameSize + 8 + 1000;
        using (var file = new FileStream(Segment, FileMode.Open, FileAccess.Write))
        {
            file.Position = damaged;
            file.WriteByte(1);
        }

        await using var reopened = new FileLogStorage(new FileLogStorageOptions { Directory = temp.Path }, diagnostics);
        var error = await Assert.ThrowsAsync<InvalidDataException>(() => reopened.AppendAsync("log", [Payload(9, 9, RecordSize)], CancellationToken.None));
        Assert.Contains($"corrupt at offset {FrameSize}", error.Message);
        Assert.Contains($"a later group follow it (at offset {(2 * FrameSize) + 8 + 2048})", error.Message);
        Assert.Equal((3 * FrameSize) + 8 + 2048, new FileInfo(Segment).Length);
    }

    [Theory]
    [InlineData(0)]        // a log written without zeros ahead: a crash left the size grown, the data unwritten
    [InlineData(1 << 20)]  // the zeros the writer put ahead of its appends
    public async Task Zeros_after_the_last_frame_are_kept_for_appends_and_cut_nothing(long preallocation)
    {
        var written = await WriteSixRecordsAsync(preallocation);
        using (var file = new FileStream(Segment, FileMode.Append, FileAccess.Write))
        {
            file.Write(new byte[4096]);
        }

        var length = new FileInfo(Segment).Length;
        var extra = Payload(9, 9, RecordSize);
        await using (var reopened = new FileLogStorage(new FileLogStorageOptions { Directory = temp.Path }, diagnostics))
        {
            Assert.Equal(written, await ReadAllAsync(reopened, "log"));
            await reopened.AppendAsync("log", [extra], CancellationToken.None);
        }

        // The record went where the zeros began, over them: the file did not grow.
        Assert.Equal(7 * FrameSize, FramesEnd(Segment));
        Assert.Equal(length, new FileInfo(Segment).Length);
        Assert.DoesNotContain(diagnostics.Entries, e => e.Level >= LogLevel.Warning);
        await using var again = new FileLogStorage(new FileLogStorageOptions { Directory = temp.Path });
        Assert.Equal([.. written, extra], await ReadAllAsync(again, "log"));
    }

    [Fact]
    public async Task Zeros_with_anything_after_them_are_a_torn_group_and_cut()
    {
        var written = await WriteSixRecordsAsync();
        using (var file = new FileStream(Segment, FileMode.Open, FileAccess.Write))
        {
            // A group whose first page never landed but whose second did.
            file.Position = 6 * FrameSize + 4096;
            file.WriteByte(1);
        }

        await using var reopened = new FileLogStorage(new FileLogStorageOptions { Directory = temp.Path }, diagnostics);
        await reopened.AppendAsync("log", [Payload(9, 9, RecordSize)], CancellationToken.None);
        Assert.Equal(7 * FrameSize, FramesEnd(Segment));
        var warning = Assert.Single(diagnostics.Entries, e => e.Level == LogLevel.Warning).Message;
        Assert.Contains($"offset {6 * FrameSize}", warning);
        Assert.Equal([.. written, Payload(9, 9, RecordSize)], await ReadAllAsync(reopened, "log"));
    }

    [Fact]
    public async Task An_intact_log_is_not_cut_and_logs_no_warning()
    {
        var written = await WriteSixRecordsAsync();
        await using var reopened = new FileLogStorage(new FileLogStorageOptions { Directory = temp.Path }, diagnostics);
        var length = new FileInfo(Segment).Length;
        Assert.Equal(written, await ReadAllAsync(reopened, "log"));
        await reopened.AppendAsync("log", [Payload(9, 9, RecordSize)], CancellationToken.None);
        Assert.Equal(7 * FrameSize, FramesEnd(Segment));
        Assert.Equal(length, new FileInfo(Segment).Length);
        Assert.DoesNotContain(diagnostics.Entries, e => e.Level >= LogLevel.Warning);
    }

    // Where the intact frames of a segment end: with zeros written ahead, the file is longer.
    private static long FramesEnd(string path)
    {
        using var stream = File.OpenRead(path);
        using var reader = new FrameReader(stream, stream.Length);
        while (reader.NextAsync(CancellationToken.None).AsTask().GetAwaiter().GetResult())
        {
        }

        return reader.Position;
    }

    private async Task<List<byte[]>> WriteSixRecordsAsync(long preallocation = 1 << 20)
    {
        var written = new List<byte[]>();
        await using var storage = new FileLogStorage(new FileLogStorageOptions { Directory = temp.Path, PreallocationBytes = preallocation });
        for (var g = 0; g < 3; g++)
        {
            byte[][] group = [Payload(g, 0, RecordSize), Payload(g, 1, RecordSize)];
            await storage.AppendAsync("log", [group[0], group[1]], CancellationToken.None);
            written.AddRange(group);
        }

        Assert.Equal(6 * FrameSize, FramesEnd(Segment));
        Assert.Equal(Math.Max(6 * FrameSize, 2 * FrameSize + preallocation), new FileInfo(Segment).Length); // zeros ahead of the first group, none added since
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
            Assert.Equal(LastFrame + FrameSize, FramesEnd(Segment));
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

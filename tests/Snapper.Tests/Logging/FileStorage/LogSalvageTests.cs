using Snapper.Logging.FileStorage;
using static Snapper.Tests.Infrastructure.LogStorageContents;
using static Snapper.Tests.Logging.FileStorage.WalTestData;

namespace Snapper.Tests.Logging.FileStorage;

/// <summary>
/// <see cref="FileLogStorage.SalvageAsync"/>: what a corrupt log keeps and what goes aside (never
/// deleted), and that a log it finds whole, or merely torn, is left as it is.
/// </summary>
public sealed class LogSalvageTests : IDisposable
{
    // 1000-byte payloads frame to 1008 bytes: four fit in a 4 KiB segment, so ten make three segments.
    private const int SegmentSize = 4096;
    private const int RecordSize = 1000;
    private const int FrameSize = RecordSize + 8;

    private readonly TempDirectory temp = new();

    public void Dispose() => temp.Dispose();

    private string SegmentPath(int sequence) => Path.Combine(temp.Path, "log", $"{sequence:D10}.wal");

    [Fact]
    public async Task Damage_in_an_older_segment_keeps_what_precedes_it_and_moves_the_rest_aside_whole()
    {
        List<byte[]> written;
        await using (var storage = Open())
        {
            written = await AppendSinglesAsync(storage, "log", 0, 10, RecordSize);
        }

        var originals = Enumerable.Range(0, 3).Select(i => File.ReadAllBytes(SegmentPath(i))).ToArray();
        FlipByte(SegmentPath(1), FrameSize + 8 + 10); // the second frame of segment 1: record 5
        var damaged = File.ReadAllBytes(SegmentPath(1));

        await using (var salvager = Open())
        {
            var report = await salvager.SalvageAsync("log", CancellationToken.None);
            Assert.True(report.Salvaged);
            Assert.Equal(SegmentPath(1), report.Segment);
            Assert.Equal(FrameSize, report.Offset);
            Assert.Contains("a segment before the last must be whole", report.Problem);
            Assert.Equal(5, report.KeptFrames);
            Assert.Equal(4, report.LostFrames); // records 6 to 9; record 5 is the damaged one
            Assert.Equal(originals[1].Length - FrameSize + originals[2].Length, report.LostBytes);
            Assert.Equal([SegmentPath(1) + ".corrupt", SegmentPath(2) + ".corrupt"], report.MovedAside);
        }

        Assert.Equal(damaged, File.ReadAllBytes(SegmentPath(1) + ".corrupt"));
        Assert.Equal(originals[2], File.ReadAllBytes(SegmentPath(2) + ".corrupt"));
        Assert.False(File.Exists(SegmentPath(2)));

        // The log reads up to the damage and takes appends after it.
        await using (var reopened = Open())
        {
            Assert.Equal(written[..5], await ReadAllAsync(reopened, "log"));
            var more = await AppendSinglesAsync(reopened, "log", 20, 1, RecordSize);
            Assert.Equal([.. written[..5], .. more], await ReadAllAsync(reopened, "log"));
        }

        // Salvaging again finds nothing to do.
        await using var again = Open();
        Assert.False((await again.SalvageAsync("log", CancellationToken.None)).Salvaged);
    }

    [Fact]
    public async Task A_last_segment_that_is_garbage_from_its_start_is_moved_aside_whole()
    {
        List<byte[]> written;
        await using (var storage = Open())
        {
            written = await AppendSinglesAsync(storage, "log", 0, 10, RecordSize);
        }

        var garbage = new byte[new FileInfo(SegmentPath(2)).Length];
        new Random(7).NextBytes(garbage);
        File.WriteAllBytes(SegmentPath(2), garbage);

        await using (var salvager = Open())
        {
            var report = await salvager.SalvageAsync("log", CancellationToken.None);
            Assert.Equal((SegmentPath(2), 0L, 8L), (report.Segment, report.Offset, report.KeptFrames));
            Assert.Equal([SegmentPath(2) + ".corrupt"], report.MovedAside);
        }

        await using var reopened = Open();
        Assert.Equal(written[..8], await ReadAllAsync(reopened, "log"));
    }

    [Fact]
    public async Task A_whole_log_and_a_torn_tail_are_left_as_they_are()
    {
        await using (var storage = Open())
        {
            await AppendSinglesAsync(storage, "log", 0, 3, RecordSize);
        }

        await File.AppendAllBytesAsync(SegmentPath(0), [1, 2, 3]); // a torn group: the next open cuts it
        var before = await File.ReadAllBytesAsync(SegmentPath(0));
        await using var salvager = Open();
        var report = await salvager.SalvageAsync("log", CancellationToken.None);
        Assert.False(report.Salvaged);
        Assert.Equal(3, report.KeptFrames);
        Assert.Empty(report.MovedAside);
        Assert.Equal(before, await File.ReadAllBytesAsync(SegmentPath(0)));
    }

    [Fact]
    public async Task A_log_a_storage_writes_is_not_salvaged()
    {
        await using var storage = Open();
        await AppendSinglesAsync(storage, "log", 0, 1, RecordSize);
        await Assert.ThrowsAsync<InvalidOperationException>(() => storage.SalvageAsync("log", CancellationToken.None));
        await using var other = Open();
        await Assert.ThrowsAsync<LogHeldException>(() => other.SalvageAsync("log", CancellationToken.None));
    }

    private FileLogStorage Open() => new(new FileLogStorageOptions { Directory = temp.Path, SegmentSizeBytes = SegmentSize });
}

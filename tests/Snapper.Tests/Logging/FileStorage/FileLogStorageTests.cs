using System.Collections.Concurrent;
using Snapper.Logging.FileStorage;
using static Snapper.Tests.Infrastructure.LogStorageContents;
using static Snapper.Tests.Logging.FileStorage.WalTestData;

namespace Snapper.Tests.Logging.FileStorage;

public sealed class FileLogStorageTests : IDisposable
{
    // 1000-byte payloads frame to 1008 bytes: four fit in a 4 KiB segment, a fifth starts the next.
    private const int SegmentSize = 4096;
    private const int RecordSize = 1000;

    private readonly TempDirectory temp = new();

    public void Dispose() => temp.Dispose();

    [Fact]
    public async Task Groups_round_trip_in_order_across_segment_rolls_after_reopening()
    {
        var written = new List<byte[]>();
        await using (var storage = Open())
        {
            for (var g = 0; g < 7; g++)
            {
                // Groups of 1, 2, 3, 1, 2, 3, 1 records: ~1, 2 or 3 KiB each, so rolls fall between groups.
                var group = Enumerable.Range(0, g % 3 + 1).Select(i => Payload(g, i, RecordSize)).ToArray();
                await storage.AppendAsync("log", group.Select(r => (ReadOnlyMemory<byte>)r).ToArray(), CancellationToken.None);
                written.AddRange(group);
            }
        }

        await using var reopened = Open();
        var files = reopened.SegmentFiles("log");
        Assert.True(files.Count >= 3, $"expected several segments, got {files.Count}");
        Assert.Equal(
            Enumerable.Range(0, files.Count).Select(i => Path.Combine(temp.Path, "log", $"{i:D10}.wal")),
            files);

        // A group never spans segments: each file ends exactly at a group boundary, under the limit.
        Assert.All(files, f => Assert.True(new FileInfo(f).Length <= SegmentSize));
        Assert.Equal(written, await ReadAllAsync(reopened, "log"));
    }

    [Fact]
    public async Task A_group_larger_than_a_segment_lands_whole_in_its_own_segment()
    {
        await using var storage = Open();
        await storage.AppendAsync("log", [Payload(0, 0, 100)], CancellationToken.None);
        var big = Enumerable.Range(1, 6).Select(i => (ReadOnlyMemory<byte>)Payload(0, i, RecordSize)).ToArray();
        await storage.AppendAsync("log", big, CancellationToken.None);
        await storage.AppendAsync("log", [Payload(0, 7, 100)], CancellationToken.None);

        var files = storage.SegmentFiles("log");
        Assert.Equal(3, files.Count);
        Assert.Equal(6 * (RecordSize + 8), new FileInfo(files[1]).Length);
        Assert.Equal(8, (await ReadAllAsync(storage, "log")).Count);
    }

    [Fact]
    public async Task A_log_another_storage_writes_is_read_up_to_its_torn_tail_and_left_as_it_is()
    {
        // The writer (another silo sharing the folder) has a group half on disk.
        await using (var writer = Open())
        {
            await WalTestData.AppendSinglesAsync(writer, "other-silo", 0, 3, 100);
        }

        var segment = Directory.GetFiles(Path.Combine(temp.Path, "other-silo"), "*.wal").Single();
        await File.AppendAllBytesAsync(segment, [1, 2, 3, 4, 5, 6, 7]); // a torn group
        var before = await File.ReadAllBytesAsync(segment);

        // Another storage over the folder (a silo recovering) reads the whole groups and stops at
        // the torn one, without cutting it: the writer's own open does that.
        await using var reader = Open();
        var read = await ReadAllAsync(reader, "other-silo");
        Assert.Equal([0, 1, 2], read.Select(r => WalTestData.Identify(r).Number));
        Assert.Equal(before, await File.ReadAllBytesAsync(segment));
    }

    [Theory]
    [InlineData(0)]        // every group grows the file
    [InlineData(1 << 20)]  // groups overwrite the zeros written ahead
    public async Task A_log_read_while_another_storage_writes_it_reads_as_a_prefix_and_never_as_corrupt(long preallocation)
    {
        // The reader sees each group land in the page cache a page at a time: a group half there
        // is the end of what it reads, never damage (which would stop another silo's recovery).
        var options = new FileLogStorageOptions { Directory = temp.Path, PreallocationBytes = preallocation };
        await using var writer = new FileLogStorage(options);
        using var stop = new CancellationTokenSource(TimeSpan.FromSeconds(2));
        var writing = Task.Run(async () =>
        {
            for (var (next, g) = (0, 0); !stop.IsCancellationRequested; g++)
            {
                var group = Enumerable.Range(next, (g % 40) + 1).Select(i => (ReadOnlyMemory<byte>)Payload(0, i, 300)).ToArray();
                await writer.AppendAsync("live", group, CancellationToken.None);
                next += group.Length;
            }
        });

        await using var reader = new FileLogStorage(options);
        var reads = 0;
        while (!writing.IsCompleted)
        {
            var numbers = (await ReadAllAsync(reader, "live")).Select(r => Identify(r).Number).ToList();
            Assert.Equal(Enumerable.Range(0, numbers.Count), numbers);
            reads++;
        }

        await writing;
        Assert.True(reads > 1);
    }

    [Fact]
    public async Task A_log_never_written_reads_as_empty_and_creates_nothing()
    {
        await using var storage = Open();
        Assert.Empty(await ReadAllAsync(storage, "nothing"));
        Assert.False(Directory.Exists(Path.Combine(temp.Path, "nothing")));
        Assert.Empty(storage.SegmentFiles("nothing"));
    }

    [Fact]
    public async Task Corruption_in_an_earlier_segment_fails_the_read_naming_the_file_and_offset()
    {
        await using (var storage = Open())
        {
            await AppendSinglesAsync(storage, "log", 0, 10, RecordSize);
        }

        var first = Path.Combine(temp.Path, "log", "0000000000.wal");
        var length = new FileInfo(first).Length;
        WalTestData.FlipByte(first, RecordSize + 8 + 8 + 10); // inside the payload of the second frame

        await using var reopened = Open();
        var error = await Assert.ThrowsAsync<InvalidDataException>(() => ReadAllAsync(reopened, "log"));
        Assert.Contains(first, error.Message);
        Assert.Contains($"offset {RecordSize + 8}", error.Message);

        // Not mistaken for a torn tail: nothing was cut.
        Assert.Equal(length, new FileInfo(first).Length);
    }

    [Fact]
    public async Task A_missing_middle_segment_fails_the_read_naming_its_sequence()
    {
        await using (var storage = Open())
        {
            await AppendSinglesAsync(storage, "log", 0, 10, RecordSize);
        }

        File.Delete(Path.Combine(temp.Path, "log", "0000000001.wal"));

        await using var reopened = Open();
        var returned = 0;
        var error = await Assert.ThrowsAsync<InvalidDataException>(async () =>
        {
            await foreach (var unused in reopened.ReadAsync("log", CancellationToken.None))
            {
                returned++;
            }
        });
        Assert.Contains("sequence 1 ", error.Message);
        Assert.Contains("0000000001.wal", error.Message);
        Assert.Equal(0, returned); // the gap is found before any record is handed out
    }

    [Fact]
    public async Task A_log_folder_that_cannot_be_created_fails_the_append_naming_the_path()
    {
        // Tests run as root, which chmod does not stop; a regular file where a folder must go stops everyone.
        var blocker = Path.Combine(temp.Path, "not-a-folder");
        await File.WriteAllTextAsync(blocker, "x");
        await using var storage = new FileLogStorage(new FileLogStorageOptions { Directory = blocker });

        var error = await Assert.ThrowsAsync<IOException>(() => storage.AppendAsync("log", [Payload(0, 0)], CancellationToken.None));
        Assert.Contains(Path.Combine(blocker, "log"), error.Message);
        Assert.NotNull(error.InnerException);

        // Still failing cleanly on retry, and reads see an empty log.
        await Assert.ThrowsAsync<IOException>(() => storage.AppendAsync("log", [Payload(0, 1)], CancellationToken.None));
        Assert.Empty(await ReadAllAsync(storage, "log"));
    }

    [Fact]
    public async Task Concurrent_appends_to_two_logs_keep_every_record_once_in_each_writers_order()
    {
        const int writers = 16;
        const int groupsPerWriter = 30;
        string[] logs = ["left", "right"];
        var sent = new ConcurrentDictionary<string, ConcurrentBag<(int, int)>>();
        var start = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        await using (var storage = Open())
        {
            var tasks = Enumerable.Range(0, writers).Select(w => Task.Run(async () =>
            {
                await start.Task; // all writers go at once, so their appends really contend
                var number = 0;
                for (var g = 0; g < groupsPerWriter; g++)
                {
                    // Alternate logs, and vary the group size, so both logs see interleaved writers.
                    var log = logs[(w + g) % 2];
                    var group = new ReadOnlyMemory<byte>[g % 3 + 1];
                    for (var i = 0; i < group.Length; i++)
                    {
                        group[i] = Payload(w, number, 300);
                        sent.GetOrAdd(log, _ => []).Add((w, number));
                        number++;
                    }

                    await storage.AppendAsync(log, group, CancellationToken.None);
                }
            })).ToArray();
            start.SetResult();
            await Task.WhenAll(tasks);

            // The live storage's idea of where each log ends must match what is on disk...
            await AssertEveryRecordOnceInWriterOrderAsync(storage);
        }

        // ...and so must a fresh storage's.
        await using var reopened = Open();
        await AssertEveryRecordOnceInWriterOrderAsync(reopened);

        async Task AssertEveryRecordOnceInWriterOrderAsync(FileLogStorage storage)
        {
            foreach (var log in logs)
            {
                var read = (await ReadAllAsync(storage, log)).Select(r => Identify(r)).ToList();
                Assert.Equal(sent[log].Order(), read.Order()); // each record exactly once
                foreach (var writer in read.GroupBy(r => r.Writer))
                {
                    var numbers = writer.Select(r => r.Number).ToList();
                    Assert.Equal(numbers.Order(), numbers); // a writer's records in the order it wrote them
                }

                Assert.True(storage.SegmentFiles(log).Count > 1);
            }
        }
    }

    [Fact]
    public async Task Deleting_old_segments_of_a_live_log_keeps_the_rest_readable()
    {
        await using var storage = Open();
        var written = await AppendSinglesAsync(storage, "log", 0, 10, RecordSize);
        Assert.Equal(3, storage.SegmentFiles("log").Count);

        Assert.Equal(2, storage.DeleteSegmentsBefore("log", 2));
        Assert.Equal([Path.Combine(temp.Path, "log", "0000000002.wal")], storage.SegmentFiles("log"));
        Assert.Equal(written[8..], await ReadAllAsync(storage, "log"));

        // The current segment stays, whatever the bound, and appending carries on.
        Assert.Equal(0, storage.DeleteSegmentsBefore("log", long.MaxValue));
        written.AddRange(await AppendSinglesAsync(storage, "log", 10, 3, RecordSize));
        Assert.Equal(written[8..], await ReadAllAsync(storage, "log"));
    }

    [Fact]
    public async Task A_sealed_log_truncates_exactly_what_came_before_the_seal_and_appends_after_it()
    {
        await using var storage = Open();
        var before = await AppendSinglesAsync(storage, "log", 0, 2, RecordSize);
        var mark = await storage.SealAsync("log", CancellationToken.None);
        var after = await AppendSinglesAsync(storage, "log", 2, 2, RecordSize);
        Assert.Equal([.. before, .. after], await ReadAllAsync(storage, "log"));

        await storage.TruncateAsync("log", mark, CancellationToken.None);
        Assert.Equal(after, await ReadAllAsync(storage, "log"));

        // A seal with nothing appended since the last one truncates nothing more.
        var again = await storage.SealAsync("log", CancellationToken.None);
        await storage.TruncateAsync("log", mark, CancellationToken.None);
        Assert.Equal(after, await ReadAllAsync(storage, "log"));
        Assert.True(again > mark);
    }

    [Fact]
    public async Task Deleting_old_segments_right_after_reopening_keeps_the_rest_readable()
    {
        List<byte[]> written;
        await using (var storage = Open())
        {
            written = await AppendSinglesAsync(storage, "log", 0, 10, RecordSize);
        }

        await using (var reopened = Open())
        {
            Assert.Equal(2, reopened.DeleteSegmentsBefore("log", long.MaxValue));
            Assert.Single(reopened.SegmentFiles("log"));
            written.AddRange(await AppendSinglesAsync(reopened, "log", 10, 1, RecordSize));
        }

        await using var again = Open();
        Assert.Equal(written[8..], await ReadAllAsync(again, "log"));
    }

    [Fact]
    public async Task A_cancelled_append_writes_nothing()
    {
        await using var storage = Open();
        using var cancelled = new CancellationTokenSource();
        await cancelled.CancelAsync();
        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => storage.AppendAsync("log", [Payload(0, 0)], cancelled.Token));
        Assert.Empty(await ReadAllAsync(storage, "log"));
    }

    [Fact]
    public async Task Appends_overwrite_zeros_written_ahead_and_a_segment_gives_back_its_unused_zeros_when_the_next_starts()
    {
        const int preallocation = 16 * 1024;
        var options = new FileLogStorageOptions { Directory = temp.Path, SegmentSizeBytes = 64 * 1024, PreallocationBytes = preallocation };
        List<byte[]> written;
        await using (var storage = new FileLogStorage(options))
        {
            written = await AppendSinglesAsync(storage, "log", 0, 1, RecordSize);
            var first = Assert.Single(storage.SegmentFiles("log"));
            Assert.Equal(RecordSize + 8 + preallocation, new FileInfo(first).Length);

            // Inside the zeros the file does not grow; past them it takes the next stretch.
            written.AddRange(await AppendSinglesAsync(storage, "log", 1, 16, RecordSize));
            Assert.Equal(RecordSize + 8 + preallocation, new FileInfo(first).Length);
            written.AddRange(await AppendSinglesAsync(storage, "log", 17, 1, RecordSize));
            Assert.Equal((18 * (RecordSize + 8)) + preallocation, new FileInfo(first).Length);

            // A seal starts a new segment at the next append: the old one ends with its last frame.
            await storage.SealAsync("log", CancellationToken.None);
            written.AddRange(await AppendSinglesAsync(storage, "log", 18, 1, RecordSize));
            Assert.Equal(18 * (RecordSize + 8), new FileInfo(first).Length);
            Assert.Equal(2, storage.SegmentFiles("log").Count);
        }

        // Reopened and sealed before any append: the zeros of the last run are given back too.
        await using (var reopened = new FileLogStorage(options))
        {
            Assert.Equal(written, await ReadAllAsync(reopened, "log"));
            await reopened.SealAsync("log", CancellationToken.None);
            written.AddRange(await AppendSinglesAsync(reopened, "log", 19, 1, RecordSize));
            Assert.Equal(RecordSize + 8, new FileInfo(reopened.SegmentFiles("log")[1]).Length);
        }

        await using var again = new FileLogStorage(options);
        Assert.Equal(written, await ReadAllAsync(again, "log"));
    }

    [Fact]
    public async Task Appends_make_their_blocking_disk_calls_off_the_thread_pool()
    {
        var disk = new ThreadRecordingDisk();
        await using (var storage = new FileLogStorage(new FileLogStorageOptions { Directory = temp.Path }, null, disk))
        {
            for (var i = 0; i < 5; i++)
            {
                await Task.Run(() => storage.AppendAsync("log", [Payload(0, i)], CancellationToken.None));
            }
        }

        Assert.NotEmpty(disk.Calls);
        Assert.All(disk.Calls, call => Assert.False(call.OnThreadPool, $"{call.Name} ran on a thread-pool thread"));
    }

    [Fact]
    public void Bad_options_are_rejected_naming_the_option()
    {
        var directory = Assert.Throws<ArgumentException>(() => new FileLogStorage(new FileLogStorageOptions { Directory = " " }));
        Assert.Contains(nameof(FileLogStorageOptions.Directory), directory.Message);

        var size = Assert.Throws<ArgumentException>(() => new FileLogStorage(new FileLogStorageOptions { Directory = temp.Path, SegmentSizeBytes = 4095 }));
        Assert.Contains(nameof(FileLogStorageOptions.SegmentSizeBytes), size.Message);

        var ahead = Assert.Throws<ArgumentException>(() => new FileLogStorage(new FileLogStorageOptions { Directory = temp.Path, PreallocationBytes = -1 }));
        Assert.Contains(nameof(FileLogStorageOptions.PreallocationBytes), ahead.Message);
    }

    [Fact]
    public async Task Log_names_that_are_not_plain_folder_names_and_empty_records_are_rejected()
    {
        await using var storage = Open();
        foreach (var name in new[] { "..", "a/b", "a\\b", "" })
        {
            await Assert.ThrowsAnyAsync<ArgumentException>(() => storage.AppendAsync(name, [Payload(0, 0)], CancellationToken.None));
        }

        await Assert.ThrowsAsync<ArgumentException>(() => storage.AppendAsync("log", [Payload(0, 0), ReadOnlyMemory<byte>.Empty], CancellationToken.None));
        Assert.Empty(storage.SegmentFiles("log"));
    }

    private FileLogStorage Open() => new(new FileLogStorageOptions { Directory = temp.Path, SegmentSizeBytes = SegmentSize });

    /// <summary>Real files; records which calls ran on a thread-pool thread.</summary>
    private sealed class ThreadRecordingDisk : WalDisk
    {
        public ConcurrentQueue<(string Name, bool OnThreadPool)> Calls { get; } = new();

        public override void Write(FileStream stream, ReadOnlySpan<byte> bytes)
        {
            Calls.Enqueue(("write", Thread.CurrentThread.IsThreadPoolThread));
            base.Write(stream, bytes);
        }

        public override void FlushToDisk(FileStream stream)
        {
            Calls.Enqueue(("fsync", Thread.CurrentThread.IsThreadPoolThread));
            base.FlushToDisk(stream);
        }
    }

}

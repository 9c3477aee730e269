using Snapper.Logging.FileStorage;
using Snapper.Tests.Logging.FileStorage;
using static Snapper.Tests.Infrastructure.LogStorageContents;
using static Snapper.Tests.Logging.FileStorage.WalTestData;

namespace Snapper.Tests.Regression;

/// <summary>
/// Defect 5: after a failed fsync whose rollback (truncation) failed too, the group's frames stayed
/// on disk with valid checksums; the log rescanned, accepted them and appended after them, and a
/// restart read back records the live system had treated as failed. Now the log is fail-stop: the
/// failed group is cut, or marked for recovery to cut, and nothing more is appended until restart.
/// </summary>
public sealed class FileLogFailStopRegressionTests : IDisposable
{
    private const string Log = "log";
    private readonly TempDirectory temp = new();

    public void Dispose() => temp.Dispose();

    [Theory]
    [InlineData(true)]
    [InlineData(false)]
    public async Task A_group_whose_fsync_failed_is_never_read_back_and_the_log_takes_no_more_appends(bool truncationFails)
    {
        var options = new FileLogStorageOptions { Directory = temp.Path };
        var disk = new FailingDisk();
        await using (var storage = new FileLogStorage(options, null, disk))
        {
            await storage.AppendAsync(Log, [Payload(0, 0)], CancellationToken.None);

            // The write reaches the file (and the page cache); the fsync fails, and so may the cut.
            disk.FailFsync = true;
            disk.FailTruncate = truncationFails;
            var failed = await Assert.ThrowsAsync<IOException>(() => storage.AppendAsync(Log, [Payload(0, 1)], CancellationToken.None));
            Assert.Contains("could not write", failed.Message);

            // Fail-stop: even with the disk healthy again, nothing more goes into this log.
            disk.FailFsync = disk.FailTruncate = false;
            var stopped = await Assert.ThrowsAsync<IOException>(() => storage.AppendAsync(Log, [Payload(0, 2)], CancellationToken.None));
            Assert.Contains("restart", stopped.Message);
            Assert.Same(failed, stopped.InnerException);

            // Reading in the same process sees only the acknowledged group.
            Assert.Equal([(0, 0)], (await ReadAllAsync(storage, Log)).Select(r => Identify(r)));
        }

        // A restart reads only what was acknowledged (a reader honours the marker), and its first
        // append cuts the segment there, removes the marker, and appends again.
        await using (var restarted = new FileLogStorage(options))
        {
            Assert.Equal([(0, 0)], (await ReadAllAsync(restarted, Log)).Select(r => Identify(r)));
            await restarted.AppendAsync(Log, [Payload(0, 3)], CancellationToken.None);
            Assert.Empty(Directory.GetFiles(Path.Combine(temp.Path, Log), "*" + CutMarker.Extension));
            Assert.Equal([(0, 0), (0, 3)], (await ReadAllAsync(restarted, Log)).Select(r => Identify(r)));
        }

        await using var again = new FileLogStorage(options);
        Assert.Equal([(0, 0), (0, 3)], (await ReadAllAsync(again, Log)).Select(r => Identify(r)));
    }

    /// <summary>Real files; fsync and truncation fail on demand, after the bytes were written.</summary>
    private sealed class FailingDisk : WalDisk
    {
        public bool FailFsync { get; set; }

        public bool FailTruncate { get; set; }

        public override void FlushToDisk(FileStream stream)
        {
            if (FailFsync)
            {
                throw new IOException("fsync: Input/output error (injected by the test)");
            }

            base.FlushToDisk(stream);
        }

        public override void Truncate(FileStream stream, long length)
        {
            if (FailTruncate)
            {
                throw new IOException("ftruncate: Input/output error (injected by the test)");
            }

            base.Truncate(stream, length);
        }
    }
}

using Snapper.Logging;
using Snapper.Logging.AzureTable;
using Snapper.Logging.FileStorage;
using Snapper.Tests.Infrastructure;
using Snapper.Tests.Logging.FileStorage;
using static Snapper.Tests.Infrastructure.LogStorageContents;

namespace Snapper.Tests.Logging;

/// <summary>
/// Fencing (<see cref="ILogStorage.FenceAsync"/>), the same for every storage: a silo incarnation
/// declared dead may still be running (paused, then woken); once a failover has fenced it out of
/// its log, nothing it appends counts, and it is told so, while what it wrote before still reads
/// back. Each storage is opened twice, as the paused silo and a survivor see it.
/// </summary>
public sealed class LogFencingTests(Azurite azurite) : IClassFixture<Azurite>, IDisposable
{
    private const string Log = "snapper-paused-0";
    private readonly TempDirectory folder = new();
    private readonly InMemoryLogStorage memory = new();
    private readonly string table = Azurite.NewTableName();

    public static TheoryData<string> Storages => ["memory", "file", "azure-table"];

    // The same log as another process sees it (in memory: one process, one storage).
    private ILogStorage Open(string kind) => kind switch
    {
        "memory" => memory,
        "file" => new FileLogStorage(new FileLogStorageOptions { Directory = folder.Path }),
        _ => new AzureTableLogStorage(new AzureTableLogStorageOptions { ConnectionString = azurite.ConnectionString, TableName = table }),
    };

    private static ReadOnlyMemory<byte>[] Group(byte tag) => [new byte[] { tag, 1, 2, 3 }, new byte[] { tag, 4 }];

    [Theory]
    [MemberData(nameof(Storages))]
    public async Task A_fenced_owner_is_refused_its_next_append_and_what_it_wrote_before_counts(string kind)
    {
        var paused = Open(kind);
        await paused.ClaimAsync(Log, "incarnation-1", CancellationToken.None);
        await paused.AppendAsync(Log, Group(1), CancellationToken.None);

        var survivor = Open(kind);
        await survivor.FenceAsync(Log, "incarnation-1", CancellationToken.None);
        await survivor.FenceAsync(Log, "incarnation-1", CancellationToken.None); // twice is once

        var refused = await Assert.ThrowsAsync<LogFencedException>(() => paused.AppendAsync(Log, Group(2), CancellationToken.None));
        Assert.False(refused.MayHaveCounted);
        await Assert.ThrowsAsync<LogFencedException>(() => paused.AppendAsync(Log, Group(3), CancellationToken.None));
        Assert.Equal(Bytes(Group(1)), await ReadAllAsync(Open(kind), Log));
    }

    [Theory]
    [MemberData(nameof(Storages))]
    public async Task The_next_owner_writes_on_after_the_fence_and_a_fence_for_an_earlier_owner_does_not_stop_it(string kind)
    {
        var paused = Open(kind);
        await paused.ClaimAsync(Log, "incarnation-1", CancellationToken.None);
        await paused.AppendAsync(Log, Group(1), CancellationToken.None);
        await Open(kind).FenceAsync(Log, "incarnation-1", CancellationToken.None);
        await Assert.ThrowsAsync<LogFencedException>(() => paused.AppendAsync(Log, Group(2), CancellationToken.None));
        await Die(paused); // it learns it is dead, and stops: a file log's lock goes with its process

        var next = Open(kind);
        await next.ClaimAsync(Log, "incarnation-2", CancellationToken.None);
        await next.AppendAsync(Log, Group(3), CancellationToken.None);

        // The survivors' report of the first incarnation's death can come after the second began.
        await Open(kind).FenceAsync(Log, "incarnation-1", CancellationToken.None);
        await next.AppendAsync(Log, Group(4), CancellationToken.None);

        Assert.Equal(Bytes([.. Group(1), .. Group(3), .. Group(4)]), await ReadAllAsync(Open(kind), Log));
    }

    /// <summary>
    /// A shared folder cannot refuse a write, so the writer looks for the fence after each fsync.
    /// A group written while the fence is being made (no end yet) waits for the end: it counts if
    /// the end covers it (the failover read it), else it is refused, and the next owner cuts it.
    /// </summary>
    [Fact]
    public async Task A_file_group_written_while_the_fence_is_made_counts_only_if_the_fence_end_covers_it()
    {
        var paused = (FileLogStorage)Open("file");
        await paused.ClaimAsync(Log, "incarnation-1", CancellationToken.None);
        await paused.AppendAsync(Log, Group(1), CancellationToken.None);
        var directory = Path.Combine(folder.Path, Log);

        // Covered: the end is found after the group reached the disk.
        var before = await SegmentReader.FindEndAsync(Log, directory, new FileLogStorageOptions().SegmentSizeBytes, CancellationToken.None);
        LogFence.Write(directory, new LogFence.Fence("incarnation-1", null));
        var covered = paused.AppendAsync(Log, Group(2), CancellationToken.None);
        var end = await EndAfterGrowth(directory, before);
        Assert.False(covered.IsCompleted, "a group was acknowledged before the fence said where the counted part ends");
        LogFence.Write(directory, new LogFence.Fence("incarnation-1", end));
        await covered.WaitAsync(TimeSpan.FromSeconds(10));
        await Assert.ThrowsAsync<LogFencedException>(() => paused.AppendAsync(Log, Group(3), CancellationToken.None));
        Assert.Equal(Bytes([.. Group(1), .. Group(2)]), await ReadAllAsync(Open("file"), Log));
    }

    [Fact]
    public async Task A_file_group_past_the_fence_end_is_refused_and_cut_by_the_next_owner()
    {
        var paused = (FileLogStorage)Open("file");
        await paused.ClaimAsync(Log, "incarnation-1", CancellationToken.None);
        await paused.AppendAsync(Log, Group(1), CancellationToken.None);
        var directory = Path.Combine(folder.Path, Log);

        LogFence.Write(directory, new LogFence.Fence("incarnation-1", null));
        var end = await SegmentReader.FindEndAsync(Log, directory, new FileLogStorageOptions().SegmentSizeBytes, CancellationToken.None);
        var late = paused.AppendAsync(Log, Group(2), CancellationToken.None);
        await EndAfterGrowth(directory, end); // on disk, past the end the failover found
        LogFence.Write(directory, new LogFence.Fence("incarnation-1", end));
        var refused = await Assert.ThrowsAsync<LogFencedException>(() => late.WaitAsync(TimeSpan.FromSeconds(10)));
        Assert.False(refused.MayHaveCounted);
        Assert.Equal(Bytes(Group(1)), await ReadAllAsync(Open("file"), Log));
        await Die(paused);

        var next = Open("file");
        await next.ClaimAsync(Log, "incarnation-2", CancellationToken.None);
        await next.AppendAsync(Log, Group(3), CancellationToken.None);
        Assert.Equal(Bytes([.. Group(1), .. Group(3)]), await ReadAllAsync(Open("file"), Log));
        Assert.Null(LogFence.Read(directory));
    }

    public void Dispose() => folder.Dispose();

    private static async Task Die(ILogStorage storage)
    {
        if (storage is IAsyncDisposable process)
        {
            await process.DisposeAsync();
        }
    }

    // Waits until the log's intact frames end past `before` (a group reached the disk), and returns where.
    private static async Task<LogPosition> EndAfterGrowth(string directory, LogPosition before)
    {
        await Poll.Until(async () => await SegmentReader.FindEndAsync(Log, directory, new FileLogStorageOptions().SegmentSizeBytes, CancellationToken.None) > before, "the group is on disk");
        return await SegmentReader.FindEndAsync(Log, directory, new FileLogStorageOptions().SegmentSizeBytes, CancellationToken.None);
    }

    private static List<byte[]> Bytes(ReadOnlyMemory<byte>[] records) => [.. records.Select(r => r.ToArray())];
}

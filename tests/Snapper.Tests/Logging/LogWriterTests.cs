using System.Runtime.CompilerServices;
using Microsoft.Extensions.Logging.Abstractions;
using Snapper.Diagnostics;
using Snapper.Logging;
using Snapper.Tests.Infrastructure;

namespace Snapper.Tests.Logging;

public sealed class LogWriterTests
{
    [Fact]
    public async Task Records_appended_while_a_write_is_in_flight_share_the_next_group()
    {
        var storage = new SlowStorage();
        using var metrics = new SnapperMetrics();
        var logger = new LogWriter("log", storage, metrics, NullLogger.Instance);

        var first = logger.Append(new CoordCommitRecord(1));
        await storage.Entered.Task.WaitAsync(TimeSpan.FromSeconds(5));
        var rest = Enumerable.Range(2, 50).Select(i => logger.Append(new CoordCommitRecord(i))).ToArray();
        Assert.False(first.IsCompleted); // not durable until storage says so
        storage.Release.SetResult();

        await Task.WhenAll(rest.Prepend(first)).WaitAsync(TimeSpan.FromSeconds(5));
        Assert.Equal([1, 50], storage.GroupSizes);

        var tids = new List<long>();
        await foreach (var bytes in storage.Inner.ReadAsync("log", CancellationToken.None))
        {
            tids.Add(LogRecordCodec.Decode(bytes.Span).Tid);
        }

        Assert.Equal(Enumerable.Range(1, 51).Select(i => (long)i), tids);
    }

    [Fact]
    public async Task A_failed_write_fails_every_record_of_its_group_and_the_next_group_can_succeed()
    {
        var storage = new SlowStorage { FailNext = true };
        storage.Release.SetResult();
        using var metrics = new SnapperMetrics();
        var logger = new LogWriter("log", storage, metrics, NullLogger.Instance);

        var failure = await Assert.ThrowsAsync<IOException>(() => logger.Append(new CoordCommitRecord(1)));
        Assert.Contains("Log 'log' could not persist", failure.Message);

        await logger.Append(new CoordCommitRecord(2)).WaitAsync(TimeSpan.FromSeconds(5));
    }

    [Fact]
    public async Task A_callback_append_is_told_once_durable_or_failed_and_a_throwing_callback_stops_nothing()
    {
        var storage = new SlowStorage();
        using var metrics = new SnapperMetrics();
        var logger = new LogWriter("log", storage, metrics, NullLogger.Instance);

        var first = new TaskCompletionSource<Exception?>(TaskCreationOptions.RunContinuationsAsynchronously);
        logger.AppendSequenced(new CoordCommitRecord(1), failure => first.SetResult(failure));
        await storage.Entered.Task.WaitAsync(TimeSpan.FromSeconds(5));
        logger.AppendSequenced(new CoordCommitRecord(2), _ => throw new InvalidOperationException("callback bug"));
        var third = logger.Append(new CoordCommitRecord(3));
        Assert.False(first.Task.IsCompleted); // not before storage says the record is durable
        storage.Release.SetResult();

        Assert.Null(await first.Task.WaitAsync(TimeSpan.FromSeconds(5)));
        await third.WaitAsync(TimeSpan.FromSeconds(5)); // in the group with the throwing callback
        Assert.Equal([1, 2], storage.GroupSizes);

        storage.FailNext = true;
        var failed = new TaskCompletionSource<Exception?>(TaskCreationOptions.RunContinuationsAsynchronously);
        logger.AppendSequenced(new CoordCommitRecord(4), failure => failed.SetResult(failure));
        var io = Assert.IsType<IOException>(await failed.Task.WaitAsync(TimeSpan.FromSeconds(5)));
        Assert.Contains("Log 'log' could not persist", io.Message);
    }

    [Fact]
    public async Task A_record_appended_after_others_fails_unwritten_if_one_of_them_was_lost_and_is_written_if_none_was()
    {
        var storage = new SlowStorage { FailNext = true };
        using var metrics = new SnapperMetrics();
        var logger = new LogWriter("log", storage, metrics, NullLogger.Instance);

        var lost = new TaskCompletionSource<Exception?>(TaskCreationOptions.RunContinuationsAsynchronously);
        var first = logger.AppendSequenced(new CoordCommitRecord(1), failure => lost.SetResult(failure));
        await storage.Entered.Task.WaitAsync(TimeSpan.FromSeconds(5));
        var kept = logger.AppendSequenced(new CoordCommitRecord(2), _ => { }); // the next group
        var afterLost = logger.AppendAfter(new CoordCommitRecord(3), first, kept);
        var afterKept = logger.AppendAfter(new CoordCommitRecord(4), kept, kept);
        storage.Release.SetResult(); // the first group's write fails

        Assert.IsType<IOException>(await lost.Task.WaitAsync(TimeSpan.FromSeconds(5)));
        var refused = await Assert.ThrowsAsync<IOException>(() => afterLost.WaitAsync(TimeSpan.FromSeconds(5)));
        Assert.Contains("did not write a record", refused.Message);
        await afterKept.WaitAsync(TimeSpan.FromSeconds(5));

        var tids = new List<long>();
        await foreach (var bytes in storage.Inner.ReadAsync("log", CancellationToken.None))
        {
            tids.Add(LogRecordCodec.Decode(bytes.Span).Tid);
        }

        Assert.Equal([2, 4], tids); // 1 lost with its group, 3 never written
    }

    [Fact]
    public async Task A_decision_appended_after_its_after_commit_actions_is_never_written_without_them_nor_without_the_records_it_names()
    {
        // Every group holding actions fails: the decision, in their group, fails with it. (In the
        // next group it would fail unwritten, as any AppendAfter whose record was lost does.)
        var storage = new SlowStorage { FailIf = group => group.Any(r => LogRecordCodec.Peek(r.Span).Kind == LogRecordKind.AfterCommit) };
        storage.Release.SetResult();
        using var metrics = new SnapperMetrics();
        var logger = new LogWriter("log", storage, metrics, NullLogger.Instance);
        var actor = ActorId.Create<Infrastructure.ITestActor>("a");
        var decided = logger.AppendBefore(new AfterCommitRecord(1, Batch: false, [new AfterCommitAction(1, actor, 0, [1])]), new CoordCommitRecord(1));
        await Assert.ThrowsAsync<IOException>(() => decided.WaitAsync(TimeSpan.FromSeconds(5)));

        // A batch's decision names its participants' records too (BatchComplete queued in this
        // log): one of them lost, the decision fails unwritten though its own group is written.
        storage.FailIf = null;
        var lost = new TaskCompletionSource<Exception?>(TaskCreationOptions.RunContinuationsAsynchronously);
        var blocked = new SlowStorage { FailNext = true };
        var batchLog = new LogWriter("batch-log", blocked, metrics, NullLogger.Instance);
        var participant = batchLog.AppendSequenced(new CoordCommitRecord(2), failure => lost.SetResult(failure));
        await blocked.Entered.Task.WaitAsync(TimeSpan.FromSeconds(5));
        var batchDecided = batchLog.AppendBefore(new AfterCommitRecord(3, Batch: true, [new AfterCommitAction(3, actor, 0, [1])]), new BatchCommitRecord(3), participant, participant);
        blocked.Release.SetResult();

        Assert.IsType<IOException>(await lost.Task.WaitAsync(TimeSpan.FromSeconds(5)));
        await Assert.ThrowsAsync<IOException>(() => batchDecided.WaitAsync(TimeSpan.FromSeconds(5)));
        Assert.Empty(await LogStorageContents.ReadAllAsync(storage.Inner, "log"));
        Assert.DoesNotContain(await LogStorageContents.ReadAllAsync(blocked.Inner, "batch-log"), r => LogRecordCodec.Peek(r).Kind == LogRecordKind.BatchCommit);
    }

    [Fact]
    public async Task The_failed_groups_of_one_outage_are_remembered_as_one_range()
    {
        var storage = new SlowStorage { FailWrites = 3 };
        storage.Release.SetResult();
        using var metrics = new SnapperMetrics();
        var logger = new LogWriter("log", storage, metrics, NullLogger.Instance);

        // Three groups fail one after another (one outage), one is written, one more fails.
        var sequences = new List<long>();
        for (var tid = 1; tid <= 5; tid++)
        {
            var done = new TaskCompletionSource<Exception?>(TaskCreationOptions.RunContinuationsAsynchronously);
            sequences.Add(logger.AppendSequenced(new CoordCommitRecord(tid), failure => done.SetResult(failure)));
            var failure = await done.Task.WaitAsync(TimeSpan.FromSeconds(5));
            Assert.Equal(tid is <= 3 or 5, failure is not null);
            if (tid == 4)
            {
                storage.FailNext = true;
            }
        }

        Assert.Equal(2, logger.FailedRanges);

        // Still known lost, each of them; the written one between the outages is not.
        foreach (var lost in sequences.Where((_, i) => i != 3))
        {
            await Assert.ThrowsAsync<IOException>(() => logger.AppendAfter(new CoordCommitRecord(10), lost, lost).WaitAsync(TimeSpan.FromSeconds(5)));
        }

        await logger.AppendAfter(new CoordCommitRecord(11), sequences[3], sequences[3]).WaitAsync(TimeSpan.FromSeconds(5));
    }

    private sealed class SlowStorage : ILogStorage
    {
        public InMemoryLogStorage Inner { get; } = new();

        public TaskCompletionSource Entered { get; } = new(TaskCreationOptions.RunContinuationsAsynchronously);

        public TaskCompletionSource Release { get; } = new(TaskCreationOptions.RunContinuationsAsynchronously);

        public List<int> GroupSizes { get; } = [];

        public bool FailNext { get => FailWrites > 0; set => FailWrites = value ? 1 : 0; }

        /// <summary>How many of the next writes fail.</summary>
        public int FailWrites { get; set; }

        /// <summary>Fails every write of a group it says so of.</summary>
        public Func<IReadOnlyList<ReadOnlyMemory<byte>>, bool>? FailIf { get; set; }

        public async Task AppendAsync(string log, IReadOnlyList<ReadOnlyMemory<byte>> group, CancellationToken cancellationToken)
        {
            Entered.TrySetResult();
            await Release.Task;
            if (FailWrites > 0 || FailIf?.Invoke(group) == true)
            {
                FailWrites = Math.Max(0, FailWrites - 1);
                throw new IOException("disk on fire");
            }

            GroupSizes.Add(group.Count);
            await Inner.AppendAsync(log, group, cancellationToken);
        }

        public async IAsyncEnumerable<ReadOnlyMemory<byte>> ReadAsync(string log, [EnumeratorCancellation] CancellationToken cancellationToken)
        {
            await foreach (var record in Inner.ReadAsync(log, cancellationToken))
            {
                yield return record;
            }
        }

        public IAsyncEnumerable<string> ListAsync(CancellationToken cancellationToken) => Inner.ListAsync(cancellationToken);

        public Task<long> SealAsync(string log, CancellationToken cancellationToken) => Inner.SealAsync(log, cancellationToken);

        public Task TruncateAsync(string log, long mark, CancellationToken cancellationToken) => Inner.TruncateAsync(log, mark, cancellationToken);

        public Task ClaimAsync(string log, string owner, CancellationToken cancellationToken) => Inner.ClaimAsync(log, owner, cancellationToken);

        public Task FenceAsync(string log, string owner, CancellationToken cancellationToken) => Inner.FenceAsync(log, owner, cancellationToken);
    }
}

using Microsoft.Extensions.DependencyInjection;
using Snapper.Coordination;
using Snapper.Logging;
using Snapper.Tests.Infrastructure;
using Snapper.Configuration;
using Snapper.Protocol;

namespace Snapper.Tests.Pact;

/// <summary>
/// PACT commit with a durable log (docs/architecture.md, "PACT with a durable log"): a batch
/// decides and logs its BatchCommit while the previous batch's is still being written, naming it as
/// a dependency; it is acknowledged only after the previous one; recovery counts its record only
/// if the dependency's is there; and a coordinator whose BatchInfo is still being written gathers
/// the PACTs that arrive meanwhile into one batch, as does one with MaxBatchesInFlight unresolved batches.
/// </summary>
public sealed class PipelinedCommitTests
{
    private static readonly TimeSpan Bound = TimeSpan.FromSeconds(10);

    [Fact]
    public async Task A_batch_logs_its_BatchCommit_before_the_previous_one_is_durable_and_is_acknowledged_after_it()
    {
        var (loggers, p, q) = RingPlacement.TwoCoordinatorsOnTwoLoggers();
        var storage = new ScriptedLogStorage();
        await using var silo = await StartAsync(storage, loggers);
        var (commit, first, second) = await TwoBatchesWithTheFirstCommitHeld(silo, storage, p, q);
        var firstBid = (await silo.LogRecords()).OfType<BatchInfoRecord>().Single(i => i.Participants.Contains(p)).Bid;
        Assert.Equal(firstBid, (await silo.LogRecords()).OfType<BatchCommitRecord>().Single().DependsOn);
        Assert.False(second.IsCompleted, "batch 2 was acknowledged before batch 1's BatchCommit was durable");

        // A crash now: batch 2's record depends on one that never reached the log, so neither counts.
        var image = await storage.ImageAsync();

        commit.Release();
        await Task.WhenAll(first, second).WaitAsync(Bound);
        Assert.Equal(1, await Read(silo, p));
        Assert.Equal(10, await Read(silo, q));

        await using var recovered = await TestSilo.StartAsync(configure: null, services => services.AddSingleton<ILogStorage>(image));
        Assert.Equal(0, await Read(recovered, p));
        Assert.Equal(0, await Read(recovered, q));
    }

    [Fact]
    public async Task A_BatchCommit_that_cannot_be_logged_aborts_its_batch_and_the_batches_that_decided_after_it()
    {
        var (loggers, p, q) = RingPlacement.TwoCoordinatorsOnTwoLoggers();
        var storage = new ScriptedLogStorage();
        await using var silo = await StartAsync(storage, loggers);
        var (commit, first, second) = await TwoBatchesWithTheFirstCommitHeld(silo, storage, p, q);

        commit.Fail();
        var firstAbort = await Assert.ThrowsAsync<TransactionAbortedException>(() => first.WaitAsync(Bound));
        var secondAbort = await Assert.ThrowsAsync<TransactionAbortedException>(() => second.WaitAsync(Bound));
        Assert.Equal(AbortReason.Failure, firstAbort.Reason);
        Assert.Contains("BatchCommit", firstAbort.Message);
        Assert.Equal(AbortReason.Cascading, secondAbort.Reason);
        var firstBid = (await silo.LogRecords()).OfType<BatchInfoRecord>().Single(i => i.Participants.Contains(p)).Bid;
        Assert.Equal((BlockedOn.Batch, firstBid), (secondAbort.Blocker!.WaitedFor, secondAbort.Blocker.Bid)); // the batch its cascade started from (issue 54)
        Assert.Equal(0, await Read(silo, p));
        Assert.Equal(0, await Read(silo, q));

        // The ring goes on, on the rolled-back state.
        await silo.Client.RunPact<ITestActor>(q, (a, ctx) => a.Add(ctx, 5), AccessSet.Of(q)).WaitAsync(Bound);
        Assert.Equal(5, await Read(silo, q));
        await silo.UntilResolved();
    }

    [Theory]
    [InlineData(true)]
    [InlineData(false)]
    public async Task A_coordinator_writing_the_actors_log_decides_before_their_BatchComplete_is_durable_and_commits_only_if_it_is_written(bool written)
    {
        var storage = new ScriptedLogStorage();
        await using var silo = await StartAsync(storage, loggers: 1, coordinators: 1);
        var p = ActorId.Create<ITestActor>("early");
        long bid = 0;
        var complete = storage.Hold(r => r is BatchCompleteRecord c && c.Actor == p && (bid = c.Bid) > 0);
        var pact = silo.Client.RunPact<ITestActor>(p, (a, ctx) => a.Add(ctx, 1), AccessSet.Of(p));
        await complete.Arrived;

        // One log: BatchComplete came with its place in it, so the batch is decided already, and its
        // BatchCommit waits in the log behind the held record.
        Assert.Equal(BatchOutcome.CommitLogging, await silo.Grains.GetGrain<ICoordinator>(silo.CoordinatorKey(0)).WaitDecided(bid).WaitAsync(Bound));
        Assert.False(pact.IsCompleted, "the PACT was acknowledged before its BatchComplete record was durable");
        Assert.DoesNotContain((await silo.LogRecords()).OfType<BatchCommitRecord>(), c => c.Bid == bid);

        if (written)
        {
            complete.Release();
            await pact.WaitAsync(Bound);
            Assert.Equal(1, await Read(silo, p));
            var records = await silo.LogRecords();
            var completeAt = records.FindIndex(r => r is BatchCompleteRecord c && c.Bid == bid);
            var commitAt = records.FindIndex(r => r is BatchCommitRecord c && c.Bid == bid);
            Assert.InRange(completeAt, 0, commitAt - 1); // a log read back has the state before the commit
            return;
        }

        complete.Fail();
        var aborted = await Assert.ThrowsAsync<TransactionAbortedException>(() => pact.WaitAsync(Bound));
        Assert.Equal(AbortReason.Failure, aborted.Reason);
        Assert.DoesNotContain((await silo.LogRecords()).OfType<BatchCommitRecord>(), c => c.Bid == bid);
        Assert.Equal(0, await Read(silo, p));

        // The ring goes on, on the rolled-back state.
        await silo.Client.RunPact<ITestActor>(p, (a, ctx) => a.Add(ctx, 5), AccessSet.Of(p)).WaitAsync(Bound);
        Assert.Equal(5, await Read(silo, p));
        await silo.UntilResolved();
    }

    [Theory]
    [InlineData(nameof(BatchInfoRecord), SnapperOptions.DefaultMaxBatchesInFlight)] // the previous BatchInfo is being logged
    [InlineData(nameof(BatchCommitRecord), 1)] // MaxBatchesInFlight of its batches are unresolved
    public async Task PACTs_that_arrive_while_a_coordinator_holds_back_form_one_batch(string held, int maxBatchesInFlight)
    {
        const int gathered = 6;
        var storage = new ScriptedLogStorage();
        await using var silo = await StartAsync(storage, loggers: 1, coordinators: 1, maxBatchesInFlight);
        var write = storage.Hold(r => r.GetType().Name == held);
        var first = silo.Client.RunPact<ITestActor>(ActorId.Create<ITestActor>("g"), (a, ctx) => a.Add(ctx, 1), AccessSet.Of(ActorId.Create<ITestActor>("g")));
        await write.Arrived;

        var later = Enumerable.Range(0, gathered)
            .Select(i => ActorId.Create<ITestActor>($"g{i}"))
            .Select(id => silo.Client.RunPact<ITestActor>(id, (a, ctx) => a.Add(ctx, 1), AccessSet.Of(id)))
            .ToList();
        await Poll.Until(async () => (await silo.Ring()).Waiting == gathered, "the later PACTs wait at the coordinator");

        write.Release();
        await Task.WhenAll([first, .. later]).WaitAsync(Bound);
        var batches = (await silo.LogRecords()).OfType<BatchInfoRecord>().ToList();
        Assert.Equal(2, batches.Count);
        Assert.Equal(gathered, batches[1].Participants.Length);
    }

    // Batch 1 (p, coordinator 0) is decided and its BatchCommit is held; batch 2 (q, coordinator 1,
    // another logger) has decided after it and its BatchCommit is durable.
    private static async Task<(HeldGroup Commit, Task First, Task Second)> TwoBatchesWithTheFirstCommitHeld(TestSilo silo, ScriptedLogStorage storage, ActorId p, ActorId q)
    {
        var commit = storage.Hold(r => r is BatchCommitRecord);
        var first = silo.Client.RunPact<ITestActor>(p, (a, ctx) => a.Add(ctx, 1), AccessSet.Of(p));
        await commit.Arrived;
        var second = silo.Client.RunPact<ITestActor>(q, (a, ctx) => a.Add(ctx, 10), AccessSet.Of(q));
        await Poll.Until(async () => (await silo.LogRecords()).OfType<BatchCommitRecord>().Any(), "batch 2's BatchCommit is durable while batch 1's is held");
        return (commit, first, second);
    }

    private static async Task<TestSilo> StartAsync(ScriptedLogStorage storage, int loggers, int coordinators = 2, int maxBatchesInFlight = SnapperOptions.DefaultMaxBatchesInFlight)
    {
        var silo = await TestSilo.StartAsync(
            s => s.Configure(o =>
            {
                o.CoordinatorCount = coordinators;
                o.LoggerCount = loggers;
                o.MaxBatchesInFlight = maxBatchesInFlight;
            }),
            services => services.AddSingleton<ILogStorage>(storage));
        Assert.Equal(RingPlacement.CoordinatorKey(0), silo.CoordinatorKey(0)); // the placement the tests chose their actors by
        return silo;
    }

    private static Task<int> Read(TestSilo silo, ActorId actor) => silo.Client.RunAct<ITestActor, int>(actor, (a, ctx) => a.Read(ctx));
}

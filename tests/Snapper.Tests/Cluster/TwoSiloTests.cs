using System.Collections.Concurrent;
using ListAppend;
using Microsoft.Extensions.DependencyInjection;
using Snapper.Coordination;
using Snapper.History;
using Snapper.Logging;
using Snapper.Tests.Hybrid;
using Snapper.Tests.Infrastructure;
using Snapper.Protocol;

namespace Snapper.Tests.Cluster;

/// <summary>
/// Snapper on a cluster of two silos: actors spread over both, a coordinator on each, so batches,
/// the token, two-phase commit and the hybrid bookkeeping all cross silos.
/// </summary>
public sealed class TwoSiloTests
{
    private static readonly TimeSpan Bound = TimeSpan.FromSeconds(30);

    private static ActorId Actor(string key) => ActorId.Create<ITestActor>(key);

    [Fact]
    public async Task A_PACT_batch_spans_both_silos_and_the_token_forms_batches_on_each()
    {
        await using var cluster = await TestSilo.StartAsync(s => s.Configure(o => o.CoordinatorCount = 1), silos: 2);
        var (a, b) = await cluster.ActorsOnTwoSilos();

        // One PACT writing an actor on each silo: its batch has a sub-batch on both.
        await cluster.Client.RunPact<ITestActor>(a, (x, ctx) => x.AddThenCall(ctx, 1, b, 10), AccessSet.Of(a).And(b)).WaitAsync(Bound);
        Assert.Equal((1, 10), (await Read(cluster, a), await Read(cluster, b)));

        // PACTs rooted on many actors reach both coordinators (the client picks one by the root's
        // hash); each forms batches only while it holds the token, so the token went to both silos.
        var roots = Enumerable.Range(0, 24).Select(i => Actor($"root-{i}")).ToArray();
        await Task.WhenAll(roots.Select(r => cluster.Client.RunPact<ITestActor>(r, (x, ctx) => x.AddThenCall(ctx, 1, a, 1), AccessSet.Of(r).And(a)))).WaitAsync(Bound);
        var view = await cluster.Grains.GetGrain<IRingMembership>(0).View();
        Assert.Equal(2, view.Members.Select(CoordinatorKey.SiloOf).Distinct().Count());
        foreach (var member in view.Members)
        {
            Assert.True((await cluster.Grains.GetGrain<ICoordinator>(member).Status()).BatchesFormed > 0, $"coordinator {member} never formed a batch");
        }

        Assert.Equal(1 + roots.Length, await Read(cluster, a));
        await cluster.UntilResolved();

        // BatchCommit goes once per silo: each silo heard the other silo's coordinator announce its commits.
        foreach (var silo in cluster.Cluster.Silos)
        {
            Assert.True(silo.ServiceProvider.GetRequiredService<Snapper.Coordination.BatchCommits>().AnnouncedByOtherSilos > 0, $"{silo.Name} heard no commit announced by the other silo");
        }
    }

    [Fact]
    public async Task An_ACT_commits_and_aborts_across_silos_with_two_phase_commit()
    {
        await using var cluster = await TestSilo.StartAsync(silos: 2);
        var (a, b) = await cluster.ActorsOnTwoSilos();

        await cluster.Client.RunAct<ITestActor>(a, (x, ctx) => x.AddThenCall(ctx, 1, b, 10)).WaitAsync(Bound);
        var aborted = await Assert.ThrowsAsync<TransactionAbortedException>(() => cluster.Client.RunAct<ITestActor>(a, (x, ctx) => x.AddThenCallThrowing(ctx, 5, b)).WaitAsync(Bound));

        Assert.Equal(AbortReason.User, aborted.Reason);
        Assert.Equal((1, 10), (await Read(cluster, a), await Read(cluster, b)));
        var records = await cluster.LogRecords();
        var prepare = Assert.Single(records.OfType<CoordPrepareRecord>());
        Assert.Equal(new[] { a, b }.OrderBy(x => x.Key), prepare.Participants.OrderBy(x => x.Key));
        Assert.Equal(2, records.OfType<PrepareRecord>().Count(p => p.Tid == prepare.Tid)); // one in each silo's log
        cluster.AssertQuiescent<Counter>(a, b);
    }

    public static TheoryData<int, bool> Mixes() => new()
    {
        { 90, false },
        { 50, false },
        { 50, true },
        { 0, true },
    };

    [Theory]
    [MemberData(nameof(Mixes))]
    public async Task Hybrid_and_early_lock_release_list_appends_on_two_silos_are_serializable(int pactPercent, bool earlyLockRelease)
    {
        await using var cluster = await TestSilo.StartAsync(
            s => s.Configure(o =>
            {
                o.CoordinatorCount = 2;
                o.DeadlockTimeout = Elr.EarlyLockReleaseTests.ConsistencyDeadlockTimeout; // room for batches on a loaded machine
            }),
            silos: 2);
        var ids = Enumerable.Range(0, 16).Select(i => ActorId.Create<IListActor>(i)).ToArray();
        var random = new Random((pactPercent * 31) + (earlyLockRelease ? 1 : 0));
        var plans = Enumerable.Range(0, 300)
            .Select(_ => (Pact: random.Next(100) < pactPercent, Actors: ids.OrderBy(_ => random.Next()).Take(random.Next(1, 5)).ToArray()))
            .ToArray();
        var history = new ConcurrentBag<HistoryEntry>();
        var options = earlyLockRelease ? ActOptions.EarlyRelease : ActOptions.Default;

        await Parallel.ForEachAsync(plans, new ParallelOptions { MaxDegreeOfParallelism = 24 }, async (plan, _) =>
            history.Add(await HybridConsistencyTests.Run(cluster.Client, plan.Pact, plan.Actors, options)));

        var result = ListAppendChecker.Check([.. history], await HybridConsistencyTests.ReadAll(cluster.Client, ids));
        Assert.True(result.Ok, CheckReport.Render(result));
        Assert.Contains(history, h => h.Status == TransactionStatus.Committed);
        Assert.DoesNotContain(history, h => h.Mode == "pact" && h.Status == TransactionStatus.Aborted);
        Assert.True(ids.Select(id => cluster.SiloOf(id)).Distinct().Count() == 2, "the lists were all on one silo");
    }

    [Fact]
    public async Task An_actor_keeps_its_committed_state_when_deactivated_or_moved_to_the_other_silo()
    {
        await using var cluster = await TestSilo.StartAsync(silos: 2);
        var (a, b) = await cluster.ActorsOnTwoSilos();
        await cluster.Client.RunAct<ITestActor>(a, (x, ctx) => x.AddThenCall(ctx, 3, b, 4)).WaitAsync(Bound);
        await cluster.Client.RunPact<ITestActor>(a, (x, ctx) => x.AddThenCall(ctx, 10, b, 20), AccessSet.Of(a).And(b)).WaitAsync(Bound);
        await Poll.Until(() => !cluster.Actor<Counter>(a).PactParticipant.HasUncommittedBatches && !cluster.Actor<Counter>(b).PactParticipant.HasUncommittedBatches, "both actors received BatchCommit");

        // Deactivated between transactions: the next activation (wherever it is placed) has the state.
        await cluster.Cluster.DeactivateAsync(cluster.Grains.GetGrain<ITestActor>(a.Key));
        Assert.Equal(13, await Read(cluster, a));

        // Moved to the other silo: it activates there with the state it committed here.
        var from = cluster.SiloOf(b)!;
        var to = cluster.Cluster.Silos.First(s => s.Name != from);
        await cluster.Cluster.MigrateAsync(cluster.Grains.GetGrain<ITestActor>(b.Key), to.SiloAddress);
        Assert.Equal(24, await Read(cluster, b));
        Assert.Equal(to.Name, cluster.SiloOf(b));

        // And it goes on from there.
        await cluster.Client.RunAct<ITestActor>(b, (x, ctx) => x.Add(ctx, 1)).WaitAsync(Bound);
        Assert.Equal(25, await Read(cluster, b));
    }

    [Fact]
    public async Task Recovery_reads_every_silos_logs_and_keeps_each_actors_latest_version()
    {
        var storage = new InMemoryLogStorage();
        ActorId moved;
        await using (var cluster = await TestSilo.StartAsync(services: s => s.AddSingleton<ILogStorage>(storage), silos: 2))
        {
            var (a, b) = await cluster.ActorsOnTwoSilos();
            moved = a;
            await cluster.Client.RunAct<ITestActor>(a, (x, ctx) => x.AddThenCall(ctx, 1, b, 1)).WaitAsync(Bound);

            // a commits once more on the second silo: its newest state is only in that silo's log,
            // which a restarted silo named after the first does not write.
            var to = cluster.Cluster.Silos.First(s => s.Name != cluster.SiloOf(a));
            await cluster.Cluster.MigrateAsync(cluster.Grains.GetGrain<ITestActor>(a.Key), to.SiloAddress);
            await cluster.Client.RunAct<ITestActor>(a, (x, ctx) => x.Add(ctx, 100)).WaitAsync(Bound);
        }

        var logs = new List<string>();
        await foreach (var log in storage.ListAsync(CancellationToken.None))
        {
            logs.Add(log);
        }

        Assert.True(logs.Count >= 2, $"expected the logs of two silos, found {string.Join(", ", logs)}");

        // A new cluster of one silo over the same storage recovers a's latest state.
        await using var restarted = await TestSilo.StartAsync(services: s => s.AddSingleton<ILogStorage>(storage));
        Assert.Equal(101, await Read(restarted, moved));
    }

    [Fact]
    public async Task A_silo_that_joins_enters_the_ring_while_PACTs_keep_committing()
    {
        await using var cluster = await TestSilo.StartAsync(s => s.Configure(o => o.CoordinatorCount = 1));
        var accounts = Enumerable.Range(0, 8).Select(i => Actor($"join-{i}")).ToArray();
        using var stop = new CancellationTokenSource();
        var committed = 0;
        var load = Task.Run(async () =>
        {
            var random = new Random(7);
            while (!stop.IsCancellationRequested)
            {
                var (a, b) = (accounts[random.Next(8)], accounts[random.Next(8)]);
                if (a != b)
                {
                    await cluster.Client.RunPact<ITestActor>(a, (x, ctx) => x.AddThenCall(ctx, 1, b, 1), AccessSet.Of(a).And(b));
                    Interlocked.Increment(ref committed);
                }
            }
        });

        await Poll.Until(() => Volatile.Read(ref committed) > 20, "PACTs commit on one silo");
        var joined = await cluster.Cluster.StartAdditionalSiloAsync();
        var before = Volatile.Read(ref committed);
        var newcomer = CoordinatorKey.For(joined.Name, 0);
        await Poll.Until(async () => (await cluster.Grains.GetGrain<ICoordinator>(newcomer).Status()).SawToken, "the token visits the new silo's coordinator");
        await Poll.Until(() => Volatile.Read(ref committed) > before + 20, "PACTs keep committing after the join");
        stop.Cancel();
        await load.WaitAsync(Bound); // no PACT failed meanwhile

        var view = await cluster.Grains.GetGrain<IRingMembership>(0).View();
        Assert.Contains(newcomer, view.Members);
        Assert.Equal(2 * Volatile.Read(ref committed), (await Task.WhenAll(accounts.Select(a => Read(cluster, a)))).Sum());
    }

    private static Task<int> Read(TestSilo cluster, ActorId id) => cluster.Client.RunAct<ITestActor, int>(id, (x, ctx) => x.Read(ctx));
}

using Microsoft.Extensions.DependencyInjection;
using Snapper.Coordination;
using Snapper.Failover;
using Snapper.Grains;
using Snapper.Protocol;
using Snapper.Tests.Infrastructure;
using Snapper.Tests.Logging.FileStorage;

namespace Snapper.Tests.Regression;

/// <summary>
/// Found by the membership nemesis (scripts/chaos.sh file 3, round 1): a silo paused past the death
/// vote woke up with the BatchMsgs of a batch its coordinator had emitted just before the pause
/// still queued. The survivors had failed it over and aborted that batch, yet their actors ran it
/// when the messages arrived; once the silo came back under its name, its coordinator of the same
/// key committed later batches, and a survivor took that announcement for the old batch's commit.
/// The caller heard "committed", two of the batch's three actors kept its write, the third had
/// rolled it back (a lost append). A batch a failover decided is never run after the seal, and only
/// the failover answers for it.
/// </summary>
public sealed class LateBatchRegressionTests : IDisposable
{
    private static readonly TimeSpan Bound = TimeSpan.FromSeconds(60);
    private readonly TempDirectory folder = new();

    [Fact]
    public async Task A_batch_that_arrives_after_its_silo_was_failed_over_never_runs_and_a_returning_coordinator_does_not_commit_it()
    {
        await using var cluster = await SharedFolderCluster.StartAsync(folder.Path);
        var survivor = cluster.Cluster.Silos[0];
        var departed = cluster.Cluster.Silos[1];
        var x = ActorId.Create<ITestActor>("late-batch-x");
        await cluster.Client.RunPact<ITestActor>(x, (a, ctx) => a.Add(ctx, 1), AccessSet.Of(x)).WaitAsync(Bound);
        if (cluster.SiloOf(x) != survivor.Name)
        {
            await cluster.Cluster.MigrateAsync(cluster.Grains.GetGrain<ITestActor>(x.Key), survivor.SiloAddress);
        }

        Assert.Equal(survivor.Name, cluster.SiloOf(x));

        // The ring fails the other silo over while it runs, as the survivors' reports would.
        await SharedFolderCluster.FailOverWhileItRuns(cluster, departed).WaitAsync(Bound);
        var seal = await survivor.ServiceProvider.GetRequiredService<DepartedSilos>().WhenSettled([]).WaitAsync(Bound);
        Assert.NotNull(seal);

        // Its coordinator's BatchMsg for a batch it emitted before the seal (one PACT, one call on
        // x) arrives now; then a coordinator of the same key announces a later batch committed.
        var coordinator = CoordinatorKey.For(departed.Name, 0);
        var bid = seal.Through;
        await survivor.ServiceProvider.GetRequiredService<ActorResolver>().Participant(x).OnBatch(new SubBatch(bid, 0, coordinator, [(bid, 1)])).WaitAsync(Bound);
        var commits = survivor.ServiceProvider.GetRequiredService<BatchCommits>();
        commits.Announced(coordinator, bid + 1_000);

        Assert.False(await commits.WhenCommitted(coordinator, bid).WaitAsync(Bound), "a batch the failover aborted was taken as committed");

        // x runs on: nothing waits behind the late batch, and it wrote nothing.
        await Committed(() => cluster.Client.RunPact<ITestActor, int>(x, async (a, ctx) => { await a.Add(ctx, 10); return 0; }, AccessSet.Of(x)));
        Assert.Equal(11, await Committed(() => cluster.Client.RunPact<ITestActor, int>(x, (a, ctx) => a.Read(ctx), AccessSet.Of(x))));
    }

    // The failed-over silo still runs here (a paused one would be dead): a PACT the client places
    // with its coordinators aborts as its log refuses them, and is placed again. A PACT stuck
    // behind the late batch is not aborted but in doubt after the client's response timeout.
    private static async Task<int> Committed(Func<Task<int>> pact)
    {
        var since = DateTime.UtcNow;
        while (true)
        {
            try
            {
                return await pact().WaitAsync(Bound);
            }
            catch (TransactionAbortedException) when (DateTime.UtcNow - since < Bound)
            {
            }
        }
    }

    public void Dispose() => folder.Dispose();
}

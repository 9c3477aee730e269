using Microsoft.Extensions.DependencyInjection;
using Orleans.Runtime;
using Snapper.Logging;
using Snapper.Logging.FileStorage;
using Snapper.Protocol;
using Snapper.Tests.Infrastructure;
using Snapper.Tests.Logging.FileStorage;

namespace Snapper.Tests.Regression;

/// <summary>
/// Defect 5 of issue 49: a silo paused longer than the death vote is failed over while it still
/// runs. When it wakes it goes on serving until it learns its fate; what it commits then, the
/// survivors never read. Here the survivors fail it over while it runs (the ring is told it
/// departed, as their reports would), and it commits on its actor afterwards, on file logs in one
/// folder, each silo writing its own. The commit must be refused by its log, the caller must not
/// hear "committed", and the silo must stop itself.
/// </summary>
public sealed class PausedSiloRegressionTests : IDisposable
{
    private static readonly TimeSpan Bound = TimeSpan.FromSeconds(60);

    // A read the client sends while the dead silo still holds x's directory entry can be lost:
    // asked again sooner than Orleans' 30 s default.
    private static readonly TimeSpan ClientResponseTimeout = TimeSpan.FromSeconds(5);
    private readonly TempDirectory folder = new();

    [Fact]
    public async Task A_silo_failed_over_while_it_runs_is_fenced_its_late_commit_refused_and_it_stops()
    {
        await using var cluster = await SharedFolderCluster.StartAsync(
            folder.Path,
            client: c => c.Configure<Orleans.Configuration.ClientMessagingOptions>(o => o.ResponseTimeout = ClientResponseTimeout));
        var paused = cluster.Cluster.Silos[1];
        var x = ActorId.Create<ITestActor>("fenced-x");
        await cluster.Client.RunAct<ITestActor>(x, (a, ctx) => a.Add(ctx, 1)).WaitAsync(Bound);
        if (cluster.SiloOf(x) != paused.Name)
        {
            await cluster.Cluster.MigrateAsync(cluster.Grains.GetGrain<ITestActor>(x.Key), paused.SiloAddress);
        }

        Assert.Equal(paused.Name, cluster.SiloOf(x));
        await cluster.Client.RunAct<ITestActor>(x, (a, ctx) => a.Add(ctx, 1)).WaitAsync(Bound); // logged by the silo to be fenced

        await SharedFolderCluster.FailOverWhileItRuns(cluster, paused).WaitAsync(Bound);

        // x is still active there: a one-phase commit whose Commit record its log now refuses.
        var late = await Record.ExceptionAsync(() => cluster.Client.RunAct<ITestActor>(x, (a, ctx) => a.Add(ctx, 100)).WaitAsync(Bound));
        Assert.True(late is TransactionException, $"a commit on a fenced silo was reported committed, or failed otherwise: {late}");

        // It stopped itself (Orleans' fatal error handler: in a test host, the silo's host stops).
        var membership = cluster.Services.GetRequiredService<IClusterMembershipService>();
        await Poll.Until(() => membership.CurrentSnapshot.GetSiloStatus(paused.SiloAddress) is SiloStatus.Dead, "the fenced silo stops");

        // The logs hold nothing past the fence: x, wherever it is now, has its two commits only.
        // (A read sent while the client still routes x to the stopped silo is lost: read again.)
        int? read = null;
        var since = DateTime.UtcNow;
        while ((read = await ReadOrLost(cluster, x)) is null)
        {
            Assert.True(DateTime.UtcNow - since < Bound, "x did not read on the survivor");
        }

        var reader = new FileLogStorage(new FileLogStorageOptions { Directory = folder.Path });
        var commits = new List<LogRecord>();
        await foreach (var log in reader.ListAsync(CancellationToken.None))
        {
            await foreach (var bytes in reader.ReadAsync(log, CancellationToken.None))
            {
                if (LogRecordCodec.Decode(bytes.Span) is CommitRecord commit && commit.Actor == x)
                {
                    commits.Add(commit);
                }
            }
        }

        Assert.Equal(2, commits.Count);
    }

    private static async Task<int?> ReadOrLost(TestSilo cluster, ActorId x)
    {
        try
        {
            return await cluster.Client.RunAct<ITestActor, int>(x, (a, ctx) => a.Read(ctx)).WaitAsync(Bound);
        }
        catch (TransactionInDoubtException)
        {
            return null;
        }
    }

    public void Dispose() => folder.Dispose();
}

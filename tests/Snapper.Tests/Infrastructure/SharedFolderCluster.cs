using Orleans.TestingHost;
using Snapper.Configuration;
using Snapper.Protocol;

namespace Snapper.Tests.Infrastructure;

/// <summary>
/// Two silos logging to files in one folder, as a failover needs (each silo reads every log), and
/// the ring told that one of them departed while it still runs, as the survivors' reports of a
/// paused silo would.
/// </summary>
internal static class SharedFolderCluster
{
    public static Task<TestSilo> StartAsync(string folder, Action<IClientBuilder>? client = null) =>
        TestSilo.StartAsync(
            s => s.Configure(o =>
            {
                o.Logging = LoggingMode.File;
                o.LogDirectory = folder;
                o.CheckpointInterval = TimeSpan.Zero;
                o.TransactionTimeout = TimeSpan.FromSeconds(10);
            }),
            silos: 2,
            client: client);

    public static Task FailOverWhileItRuns(TestSilo cluster, InProcessSiloHandle silo) =>
        cluster.Grains.GetGrain<IRingMembership>(0).Departed(silo.Name, silo.SiloAddress.ToParsableString());
}

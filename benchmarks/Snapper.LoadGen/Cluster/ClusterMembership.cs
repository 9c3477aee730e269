namespace Snapper.LoadGen.Cluster;

/// <summary>Reads the cluster's membership through Orleans' management grain.</summary>
internal static class ClusterMembership
{
    public static async Task<int> CountActiveSilos(IGrainFactory grains) =>
        (await grains.GetGrain<IManagementGrain>(0).GetHosts(onlyActive: true)).Count;
}

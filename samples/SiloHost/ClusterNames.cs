namespace SiloHost;

/// <summary>The cluster and service id of SiloHost's development cluster; LoadGen --cluster uses the same.</summary>
public static class ClusterNames
{
    public const string Id = "snapper";
}

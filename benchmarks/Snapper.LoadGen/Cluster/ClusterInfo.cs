namespace Snapper.LoadGen.Cluster;

/// <summary>The cluster a run drove, in the JSON report.</summary>
/// <param name="Kind"><c>embedded</c> or <c>external</c>.</param>
/// <param name="Silos">Active silos, read from the cluster's membership when the run started.</param>
public sealed record ClusterInfo(string Kind, int Silos);

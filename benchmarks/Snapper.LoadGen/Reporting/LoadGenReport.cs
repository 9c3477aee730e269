using Snapper.LoadGen.Cluster;
using Snapper.LoadGen.Measurement;
using Snapper.LoadGen.Options;

namespace Snapper.LoadGen.Reporting;

/// <summary>Everything one invocation measured: the JSON report's root object.</summary>
/// <param name="Workload">The workload, e.g. <c>smallbank</c>.</param>
/// <param name="Config">Every option of the invocation, defaults included.</param>
/// <param name="Cluster">The cluster the modes ran on: embedded or external, and its silos.</param>
/// <param name="Runs">One entry per mode that ran, in order.</param>
public sealed record LoadGenReport(string Workload, LoadGenOptions Config, ClusterInfo Cluster, IReadOnlyList<RunResult> Runs);

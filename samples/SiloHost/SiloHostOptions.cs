using System.Net;

namespace SiloHost;

/// <summary>One SiloHost invocation, as its flags say.</summary>
/// <param name="SiloPort">The silo-to-silo port.</param>
/// <param name="GatewayPort">The port clients connect to.</param>
/// <param name="Primary">The primary silo to join (its silo port), or null: this silo is the primary.</param>
/// <param name="Name">The silo's name, unique in the cluster: it names the silo's logs. Recovery reads every silo's logs in the folder, so a restart need not keep it.</param>
/// <param name="Logger">none, memory or file.</param>
/// <param name="LogDirectory">Where the file logger writes (every silo of a cluster may share it).</param>
/// <param name="LogDelayMs">Added to every log write, standing in for cloud storage latency.</param>
/// <param name="Clustering">dev (a development cluster around a primary) or redis (membership in Redis).</param>
/// <param name="Redis">The Redis server's host:port, for redis clustering.</param>
/// <param name="Advertise">The address other silos and clients reach this silo at.</param>
/// <param name="Connection">The Azure storage connection string of the azure-table logger.</param>
/// <param name="Table">The table the azure-table logger writes.</param>
/// <param name="CheckpointIntervalSeconds">Seconds between checkpoints of the logs (0: none).</param>
/// <param name="OrleansLockTimeoutMs">The lock timeouts of Orleans' own transactions (LoadGen's orleans-txn modes), or null for Orleans' defaults.</param>
/// <param name="Verbose">Exceptions logged whole, and a failed start's log lines written.</param>
/// <param name="AfterCommitJournal">Where the list-append sample's after-commit handler notes what it took, or null (in memory).</param>
/// <param name="FastMembership">Orleans' membership timing lowered for a test cluster on one machine (<see cref="MembershipTiming.Fast"/>), instead of Orleans' own.</param>
public sealed record SiloHostOptions(int SiloPort, int GatewayPort, IPEndPoint? Primary, string Name, string Logger, DirectoryInfo? LogDirectory, int LogDelayMs, string Clustering = "dev", string? Redis = null, IPAddress? Advertise = null, string? Connection = null, string? Table = null, int CheckpointIntervalSeconds = 60, int? OrleansLockTimeoutMs = null, bool Verbose = false, bool FastMembership = false, string? AfterCommitJournal = null);

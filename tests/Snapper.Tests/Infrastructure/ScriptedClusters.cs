namespace Snapper.Tests.Infrastructure;

/// <summary>
/// Tests that run a script's cluster of SiloHost processes under load (the crash loop, a failover,
/// the membership nemesis, the Redis pair): one at a time, beside the in-process tests. Each keeps
/// about a core busy, and two at once on a two-core runner starve each other's silos of the probe
/// answers their lowered membership timing counts on, and slow every other test.
/// </summary>
[CollectionDefinition(Name)]
public sealed class ScriptedClusters
{
    /// <summary>The collection's name, for <c>[Collection(ScriptedClusters.Name)]</c>.</summary>
    public const string Name = "scripted-clusters";
}

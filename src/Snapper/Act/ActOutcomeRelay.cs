using Orleans.Concurrency;
using Snapper.Grains;

namespace Snapper.Act;

/// <summary>Answers other silos' questions about the ACTs rooted here, from this silo's <see cref="ActOutcomes"/>.</summary>
[Reentrant]
[SiloBoundPlacement]
[CollectionAgeLimit(AlwaysActive = true)]
internal sealed class ActOutcomeRelay(ActOutcomes outcomes) : SiloBoundGrain, IActOutcomeRelay
{
    /// <summary>The key of silo <paramref name="silo"/>'s relay.</summary>
    public static string KeyOf(string silo) => $"{silo}/act-outcomes";

    public async Task<bool?> Outcome(long tid, bool durable, SiloAddress incarnation) =>
        incarnation.Equals(outcomes.Silo) && outcomes.Find(tid, durable) is { } outcome ? await outcome : null;
}

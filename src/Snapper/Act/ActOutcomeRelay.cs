using Orleans.Concurrency;
using Snapper.Coordination;

namespace Snapper.Act;

/// <summary>Answers other silos' questions about the ACTs rooted here, from this silo's <see cref="ActOutcomes"/>.</summary>
[Reentrant]
[SiloBoundPlacement]
[CollectionAgeLimit(AlwaysActive = true)]
internal sealed class ActOutcomeRelay(ActOutcomes outcomes) : Grain, IActOutcomeRelay
{
    /// <summary>The key of silo <paramref name="silo"/>'s relay.</summary>
    public static string KeyOf(string silo) => $"{silo}/act-outcomes";

    /// <inheritdoc />
    public override async Task OnActivateAsync(CancellationToken cancellationToken)
    {
        await Task.Yield(); // never complete activation synchronously: see TransactionalActor.OnActivateAsync
        await base.OnActivateAsync(cancellationToken);
    }

    public async Task<bool?> Outcome(long tid, bool durable, SiloAddress incarnation) =>
        incarnation.Equals(outcomes.Silo) && outcomes.Find(tid, durable) is { } outcome ? await outcome : null;
}

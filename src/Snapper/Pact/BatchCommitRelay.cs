using Orleans.Concurrency;
using Snapper.Coordination;

namespace Snapper.Pact;

/// <summary>Hands the commits announced by other silos' coordinators to this silo's <see cref="BatchCommits"/>.</summary>
[Reentrant]
[SiloBoundPlacement]
[CollectionAgeLimit(AlwaysActive = true)]
internal sealed class BatchCommitRelay(BatchCommits commits) : Grain, IBatchCommitRelay
{
    /// <summary>The key of silo <paramref name="silo"/>'s relay.</summary>
    public static string KeyOf(string silo) => $"{silo}/batch-commits";

    /// <inheritdoc />
    public override async Task OnActivateAsync(CancellationToken cancellationToken)
    {
        await Task.Yield(); // never complete activation synchronously: see TransactionalActor.OnActivateAsync
        await base.OnActivateAsync(cancellationToken);
    }

    public Task Committed(string coordinator, long bid)
    {
        commits.Announced(coordinator, bid);
        return Task.CompletedTask;
    }
}

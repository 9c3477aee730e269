using Orleans.Concurrency;
using Snapper.Coordination;
using Snapper.Grains;

namespace Snapper.Coordination;

/// <summary>Hands the commits announced by other silos' coordinators to this silo's <see cref="BatchCommits"/>.</summary>
[Reentrant]
[SiloBoundPlacement]
[CollectionAgeLimit(AlwaysActive = true)]
internal sealed class BatchCommitRelay(BatchCommits commits) : SiloBoundGrain, IBatchCommitRelay
{
    /// <summary>The key of silo <paramref name="silo"/>'s relay.</summary>
    public static string KeyOf(string silo) => $"{silo}/batch-commits";

    public Task Committed(string coordinator, long bid)
    {
        commits.Announced(coordinator, bid);
        return Task.CompletedTask;
    }
}

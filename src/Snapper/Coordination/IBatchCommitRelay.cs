namespace Snapper.Coordination;

/// <summary>
/// One silo's end of BatchCommit (<see cref="BatchCommits"/>): a grain bound to its silo (key
/// <c>{silo}/batch-commits</c>) that takes the commits coordinators on other silos announce.
/// </summary>
internal interface IBatchCommitRelay : IGrainWithStringKey
{
    /// <summary>
    /// Coordinator on another silo → this silo, one-way: <paramref name="coordinator"/>'s batch
    /// <paramref name="bid"/> has committed, and every batch before it has resolved (Snapper §4.2.4's
    /// BatchCommit, once per silo instead of once per participant).
    /// </summary>
    [Orleans.Concurrency.OneWay]
    Task Committed(string coordinator, long bid);
}

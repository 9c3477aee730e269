using System.Collections.Immutable;

namespace Snapper.Failover;

/// <summary>
/// A surviving silo's part of a failover (docs/architecture.md, "A silo dies"), called by the ring
/// membership one step at a time, each finished on every survivor before the next. A grain bound
/// to its silo (key <c>{silo}/failover</c>).
/// </summary>
internal interface ISiloFailover : IGrainWithStringKey
{
    /// <summary>
    /// Ring membership → survivor, once every survivor flushed its loggers (<see cref="Checkpointing.ISiloCheckpoint.Flush"/>):
    /// fence <paramref name="silo"/>'s incarnation <paramref name="incarnation"/> out of its logs, then read every log for
    /// its failover; returns the highest tid in them.
    /// </summary>
    Task<long> Evaluate(string silo, string incarnation);

    /// <summary>Ring membership → survivor: the batches of <paramref name="silo"/> (as <paramref name="incarnation"/>) that did not commit abort through <paramref name="through"/>.</summary>
    Task Seal(string silo, string incarnation, long through);

    /// <summary>
    /// Ring membership → survivor, once every surviving coordinator has resolved its batches: each
    /// active actor settles the batches of <paramref name="silo"/>'s coordinators it holds, and asks
    /// the roots of the ACTs it prepared for their outcome.
    /// </summary>
    Task Sweep(string silo);

    /// <summary>
    /// Ring membership → one live silo (the heir), once a failover is done or the ring first forms:
    /// deliver the after-commit actions still owed in the logs of silos not among <paramref name="alive"/>
    /// (the one failed over, an earlier heir that died before it had delivered, the silos of an earlier
    /// run that did not come back).
    /// </summary>
    Task DeliverOwed(ImmutableArray<string> alive);
}

namespace Snapper.Act;

/// <summary>
/// One silo's <see cref="ActOutcomes"/>, for dependents on other silos: a grain bound to its silo
/// (key <c>{silo}/act-outcomes</c>).
/// </summary>
internal interface IActOutcomeRelay : IGrainWithStringKey
{
    /// <summary>
    /// A dependent ACT's root → the silo its dependency's root ran on (<paramref name="incarnation"/>):
    /// completes with true once ACT <paramref name="tid"/> committed (its commit durable, with
    /// <paramref name="durable"/>; ordered in the log, without), false once it aborted, null if this
    /// silo does not know it (another incarnation, or forgotten).
    /// </summary>
    Task<bool?> Outcome(long tid, bool durable, SiloAddress incarnation);
}

using Orleans.Services;

namespace Snapper.Recovery;

/// <summary>
/// A silo's <see cref="CommittedStates"/>, for actors activating on other silos: an Orleans grain
/// service (a system target, one per silo), so it answers while the silo's grains deactivate. A
/// stopping silo hands its actors on in that phase, and their next activations elsewhere ask here
/// for their states; a grain of that silo would be deactivating too, and its callers would wait
/// for the silo's shutdown timeout.
/// </summary>
internal interface IStateHandoff : IGrainService
{
    /// <summary>
    /// An actor activating elsewhere → this silo: hand over its last committed state, if held here.
    /// Asked again with the same <paramref name="request"/> (its answer was lost), it answers the same.
    /// </summary>
    Task<CommittedState?> Take(ActorId actor, Guid request);
}

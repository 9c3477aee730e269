namespace Snapper.Recovery;

/// <summary>
/// A silo's <see cref="CommittedStates"/>, for actors activating on other silos. A grain bound to
/// its silo (key <c>{silo}/handoff</c>).
/// </summary>
internal interface IStateHandoff : IGrainWithStringKey
{
    /// <summary>
    /// An actor activating elsewhere → this silo: hand over its last committed state, if held here.
    /// Asked again with the same <paramref name="request"/> (its answer was lost), it answers the same.
    /// </summary>
    Task<CommittedState?> Take(ActorId actor, Guid request);
}

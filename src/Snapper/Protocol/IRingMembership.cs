namespace Snapper.Protocol;

/// <summary>
/// The one place that knows which coordinators form the ring, and that the token exists. Not on any
/// transaction's path: it is called when a silo joins or leaves, and by clients looking for a coordinator.
/// </summary>
internal interface IRingMembership : IGrainWithIntegerKey
{
    /// <summary>
    /// A silo starting (before it serves) → ring membership: its <paramref name="coordinators"/>
    /// coordinators join the ring, and no tid at or below <paramref name="tidFloor"/> (the highest in
    /// its logs) is handed out again. The first join starts the token. If a silo of the same name
    /// (an earlier <paramref name="incarnation"/>) is still in the ring, it has died: it is failed
    /// over first. Returns the new view once every coordinator has it.
    /// </summary>
    Task<RingView> Join(string silo, string incarnation, int coordinators, long tidFloor);

    /// <summary>A silo stopping → ring membership: its coordinators leave the ring.</summary>
    Task<RingView> Leave(string silo);

    /// <summary>
    /// A surviving silo → ring membership, when Orleans declares <paramref name="incarnation"/> of
    /// silo <paramref name="silo"/> dead (every survivor says so; the first call fails it over, the
    /// others find it done, and so does a report that comes after a silo of the same name joined
    /// again): halt the ring, decide what the silo left undecided from the logs, and start a new
    /// token without its coordinators (docs/architecture.md, "A silo dies"). Completes when the ring
    /// runs again.
    /// </summary>
    Task Departed(string silo, string incarnation);

    /// <summary>A client → ring membership: the coordinators, to pick one for NewPact or ACT tids.</summary>
    Task<RingView> View();
}

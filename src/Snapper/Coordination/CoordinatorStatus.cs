namespace Snapper.Coordination;

/// <summary>A coordinator's answer to <see cref="ICoordinator.Status"/>.</summary>
/// <param name="HoldsToken">It holds the token now.</param>
/// <param name="Parked">It holds the token and the ring is idle.</param>
/// <param name="SawToken">The token has visited it since it was activated.</param>
/// <param name="Unresolved">Batches it emitted that are not committed or aborted yet.</param>
/// <param name="Cascading">It holds the token while an abort cascade it started ends.</param>
/// <param name="SiloCoordinators">How many coordinators its silo runs.</param>
/// <param name="BatchesFormed">Batches it has formed since it was activated.</param>
/// <param name="Waiting">NewPact and tid requests waiting here for the token.</param>
/// <param name="View">The newest ring view it has.</param>
[GenerateSerializer, Immutable]
internal sealed record CoordinatorStatus(
    [property: Id(0)] bool HoldsToken,
    [property: Id(1)] bool Parked,
    [property: Id(2)] bool SawToken,
    [property: Id(3)] int Unresolved,
    [property: Id(4)] bool Cascading,
    [property: Id(6)] int SiloCoordinators,
    [property: Id(7)] long BatchesFormed,
    [property: Id(8)] int Waiting,
    [property: Id(9)] Protocol.RingView View)
{
    /// <summary>The epoch of <see cref="View"/>: above 0 once its coordinator has joined the ring.</summary>
    public long ViewEpoch => View.Epoch;
}

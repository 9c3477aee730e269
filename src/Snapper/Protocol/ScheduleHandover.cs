using System.Collections.Immutable;
using Snapper.Protocol;

namespace Snapper.Protocol;

/// <summary>
/// An actor's <see cref="Scheduling.LocalSchedule"/> as it stood when its activation went (deactivated or
/// migrated, with no call running): taken by the next activation, here or on another silo, so the
/// batches placed here go on where they stopped (docs/architecture.md, "An activation goes").
/// </summary>
/// <param name="HighestCompletedBid">The highest bid that completed here.</param>
/// <param name="ChainTail">The bid of the last batch placed and not aborted (0: none).</param>
/// <param name="CompletedBids">Batches completed here and not yet committed or aborted, in bid order.</param>
/// <param name="Running">The batch that was running (between two turns), or null.</param>
/// <param name="CallsFinished">For each PACT of <paramref name="Running"/>, the calls it had made here.</param>
/// <param name="Placed">The batches placed after the running one, in order.</param>
/// <param name="WaitingForPredecessor">Batches that arrived before their predecessor.</param>
/// <param name="Aborted">Bid ranges taken by abort cascades (their late messages are refused), with what their PACTs are told.</param>
/// <param name="AbortedPacts">PACTs known aborted, of the running batch or of one not started.</param>
/// <param name="AwaitingRelease">Promoted PACTs of <paramref name="Running"/> whose turn waits for their root's release.</param>
/// <param name="ReleasedPacts">PACTs whose bodies returned before they made every call declared here, of the running batch or of one not started.</param>
[GenerateSerializer, Immutable]
internal sealed record ScheduleHandover(
    [property: Id(0)] long HighestCompletedBid,
    [property: Id(1)] long ChainTail,
    [property: Id(2)] ImmutableArray<long> CompletedBids,
    [property: Id(3)] SubBatch? Running,
    [property: Id(4)] ImmutableArray<int> CallsFinished,
    [property: Id(5)] ImmutableArray<SubBatch> Placed,
    [property: Id(6)] ImmutableArray<SubBatch> WaitingForPredecessor,
    [property: Id(7)] ImmutableArray<(long From, long Through, AbortReason Cascade)> Aborted,
    [property: Id(8)] ImmutableArray<(long Bid, long Tid, Exception Cause)> AbortedPacts,
    [property: Id(9)] ImmutableArray<(long Bid, long Tid)> ReleasedPacts,
    [property: Id(10)] ImmutableArray<long> AwaitingRelease)
{
    /// <summary>Every batch named here that may still commit, for the next activation to follow.</summary>
    public IEnumerable<SubBatch> Batches => [.. Running is null ? [] : new[] { Running }, .. Placed, .. WaitingForPredecessor];
}

using System.Collections.Immutable;
using Snapper.Logging;

namespace Snapper.Protocol;

/// <summary>
/// What an actor's PACT engine hands to its next activation (see <see cref="ScheduleHandover"/>):
/// its schedule, the states its completed batches left (not committed yet), and the running batch's
/// working copy. Serialized states, so it may cross to another silo.
/// </summary>
[GenerateSerializer, Immutable]
internal sealed record PactHandover(
    [property: Id(0)] ScheduleHandover Schedule,
    [property: Id(1)] ImmutableArray<BatchState> Completed,
    [property: Id(2)] BatchState? Working)
{
    /// <summary>The highest bid whose state became committed on the actor.</summary>
    [Id(3)]
    public long LastCommittedBid { get; init; }

    /// <summary>PACTs rooted on the actor whose callers wait for the outcome through the next activation, with their bids.</summary>
    [Id(4)]
    public ImmutableArray<(long Tid, long Bid)> MovedRoots { get; init; } = [];

    /// <summary>PACTs rooted on the actor known aborted before their root learned it.</summary>
    [Id(5)]
    public ImmutableArray<(long Tid, long Bid, Exception Cause)> AbortedEarly { get; init; } = [];

    /// <summary>After-commit actions registered on the actor by PACTs of batches not completed there yet.</summary>
    [Id(6)]
    public ImmutableArray<(long Bid, ImmutableArray<AfterCommitAction> Actions)> Actions { get; init; } = [];
}

/// <summary>The state batch <paramref name="Bid"/> left (or is writing) on the actor, as <paramref name="Version"/>; empty if it wrote nothing here.</summary>
[GenerateSerializer, Immutable]
internal sealed record BatchState(
    [property: Id(0)] long Bid,
    [property: Id(1)] string Coordinator,
    [property: Id(2)] long Version,
    [property: Id(3)] byte[]? State);

namespace Snapper.Protocol;

/// <summary>
/// How a batch was resolved, as its coordinator answers <see cref="Coordination.ICoordinator.WaitResolved"/>.
/// An aborted batch carries the end of its abort cascade (<see cref="AbortedThrough"/>): every batch
/// up to that bid emitted after it is doomed as well, and a batch beyond it (formed after the
/// cascade) is not affected. A batch decided committed whose BatchCommit is not durable yet says so
/// (<see cref="Logging"/>), as <see cref="Coordination.ICoordinator.WaitDecided"/> answers. An
/// aborted batch also names the batch its cascade started from, and what was in that one's way
/// (<see cref="Origin"/>), for the PACTs of the batches the cascade takes to name as their blocker,
/// and what those PACTs are told (<see cref="Cascade"/>): <see cref="AbortReason.Cascading"/>, or
/// <see cref="AbortReason.LateCall"/> where the cascade started from PACTs that gave up late calls,
/// so that they run again as those do.
/// </summary>
[GenerateSerializer, Immutable]
internal readonly record struct BatchOutcome(
    [property: Id(0)] bool Committed,
    [property: Id(1)] long AbortedThrough,
    [property: Id(2)] bool Logging = false,
    [property: Id(3)] AbortBlocker? Origin = null,
    [property: Id(4)] AbortReason Cascade = AbortReason.Cascading)
{
    public static BatchOutcome Commit => new(true, 0);

    /// <summary>Decided committed; its BatchCommit (or an earlier batch's) is still being logged.</summary>
    public static BatchOutcome CommitLogging => new(true, 0, Logging: true);

    public static BatchOutcome Abort(long through, AbortBlocker? origin = null, AbortReason cascade = AbortReason.Cascading) => new(false, through, Origin: origin, Cascade: cascade);

    /// <summary>True if a batch with bid <paramref name="bid"/> following this one must abort too.</summary>
    public bool Dooms(long bid) => !Committed && bid <= AbortedThrough;
}

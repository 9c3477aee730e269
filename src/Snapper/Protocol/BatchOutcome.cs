namespace Snapper.Protocol;

/// <summary>
/// How a batch was resolved, as its coordinator answers <see cref="Coordination.ICoordinator.WaitResolved"/>.
/// An aborted batch carries the end of its abort cascade (<see cref="AbortedThrough"/>): every batch
/// up to that bid emitted after it is doomed as well, and a batch beyond it (formed after the
/// cascade) is not affected. A batch decided committed whose BatchCommit is not durable yet says so
/// (<see cref="Logging"/>), as <see cref="Coordination.ICoordinator.WaitDecided"/> answers.
/// </summary>
[GenerateSerializer, Immutable]
internal readonly record struct BatchOutcome([property: Id(0)] bool Committed, [property: Id(1)] long AbortedThrough, [property: Id(2)] bool Logging = false)
{
    public static BatchOutcome Commit => new(true, 0);

    /// <summary>Decided committed; its BatchCommit (or an earlier batch's) is still being logged.</summary>
    public static BatchOutcome CommitLogging => new(true, 0, Logging: true);

    public static BatchOutcome Abort(long through) => new(false, through);

    /// <summary>True if a batch with bid <paramref name="bid"/> following this one must abort too.</summary>
    public bool Dooms(long bid) => !Committed && bid <= AbortedThrough;
}

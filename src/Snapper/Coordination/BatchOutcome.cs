namespace Snapper.Coordination;

/// <summary>
/// How a batch was resolved, as its coordinator answers <see cref="ICoordinator.WaitResolved"/>.
/// An aborted batch carries the end of its abort cascade (<see cref="AbortedThrough"/>): every batch
/// up to that bid emitted after it is doomed as well, and a batch beyond it (formed after the
/// cascade) is not affected.
/// </summary>
[GenerateSerializer, Immutable]
internal readonly record struct BatchOutcome([property: Id(0)] bool Committed, [property: Id(1)] long AbortedThrough)
{
    public static BatchOutcome Commit => new(true, 0);

    public static BatchOutcome Abort(long through) => new(false, through);

    /// <summary>True if a batch with bid <paramref name="bid"/> following this one must abort too.</summary>
    public bool Dooms(long bid) => !Committed && bid <= AbortedThrough;
}

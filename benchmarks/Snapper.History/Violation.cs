namespace Snapper.History;

/// <summary>One anomaly found by <see cref="ListAppendChecker"/>.</summary>
/// <param name="Kind">What kind of anomaly it is.</param>
/// <param name="Message">A human-readable description naming the tids, actors and list positions involved.</param>
/// <param name="Tids">The tids involved (for a <see cref="ViolationKind.Cycle"/>, the cycle in order).</param>
/// <param name="Actors">The actors involved (for a <see cref="ViolationKind.Cycle"/>, the actor giving each edge).</param>
public sealed record Violation(ViolationKind Kind, string Message, IReadOnlyList<long> Tids, IReadOnlyList<string> Actors)
{
    /// <inheritdoc/>
    public override string ToString() => $"[{Kind}] {Message}";
}

namespace Snapper.History;

/// <summary>One finished transaction of the list-append workload: one line of the history file.</summary>
/// <param name="Tid">The transaction id, which is also the value it appends.</param>
/// <param name="Mode">The transaction mode (free string: <c>act</c>, <c>pact</c>, <c>act-elr</c>, ...).</param>
/// <param name="Status">How the transaction ended.</param>
/// <param name="AbortReason">Why it aborted (free string), or <see langword="null"/>.</param>
/// <param name="Actors">The actors whose lists the transaction appends to.</param>
/// <param name="Appends">
/// What it observed per actor. Trusted only for committed transactions; for aborted and unknown ones it
/// may be empty or partial.
/// </param>
public sealed record HistoryEntry(
    long Tid,
    string Mode,
    TransactionStatus Status,
    string? AbortReason,
    IReadOnlyList<string> Actors,
    IReadOnlyList<AppendObservation> Appends)
{
    /// <summary>Value equality, comparing <see cref="Actors"/> and <see cref="Appends"/> element by element.</summary>
    public bool Equals(HistoryEntry? other) =>
        other is not null
        && Tid == other.Tid
        && Status == other.Status
        && string.Equals(Mode, other.Mode, StringComparison.Ordinal)
        && string.Equals(AbortReason, other.AbortReason, StringComparison.Ordinal)
        && Actors.SequenceEqual(other.Actors, StringComparer.Ordinal)
        && Appends.SequenceEqual(other.Appends);

    /// <inheritdoc/>
    public override int GetHashCode()
    {
        var hash = new HashCode();
        hash.Add(Tid);
        hash.Add(Status);
        hash.Add(Mode, StringComparer.Ordinal);
        hash.Add(AbortReason, StringComparer.Ordinal);
        foreach (var actor in Actors)
        {
            hash.Add(actor, StringComparer.Ordinal);
        }

        foreach (var append in Appends)
        {
            hash.Add(append);
        }

        return hash.ToHashCode();
    }
}

namespace TpcC.Schema;

/// <summary>
/// What a transaction changed in one table of a partition: the rows it inserted or replaced, and
/// the keys it deleted. The delta a partition logs (<see cref="Snapper.IDeltaState{TSelf, TDelta}"/>)
/// instead of all its rows.
/// </summary>
/// <remarks>
/// TPC-C's rows are immutable records: a write puts a new row in the table (<c>row with { ... }</c>).
/// Orleans' copier does not copy an <c>[Immutable]</c> type, so the copy a writing transaction works
/// on shares every row with the state it was copied from, and a changed row is one that is no longer
/// the same object. <see cref="Between"/> compares by value where the objects differ, so a state
/// copied by a serializer that copies every row (JSON) still gets an exact, if larger, delta.
/// </remarks>
/// <param name="Set">Rows inserted or replaced, by key.</param>
/// <param name="Removed">Keys deleted.</param>
[GenerateSerializer, Immutable]
public sealed record RowChanges<TKey, TRow>(KeyValuePair<TKey, TRow>[] Set, TKey[] Removed)
    where TKey : notnull
{
    /// <summary>What turns <paramref name="before"/> into <paramref name="after"/>.</summary>
    public static RowChanges<TKey, TRow> Between(Dictionary<TKey, TRow> before, Dictionary<TKey, TRow> after)
    {
        ArgumentNullException.ThrowIfNull(before);
        ArgumentNullException.ThrowIfNull(after);
        var rows = EqualityComparer<TRow>.Default;
        List<KeyValuePair<TKey, TRow>>? set = null;
        var kept = 0;
        foreach (var (key, row) in after)
        {
            if (before.TryGetValue(key, out var old))
            {
                kept++;
                if (rows.Equals(old, row))
                {
                    continue;
                }
            }

            (set ??= []).Add(new(key, row));
        }

        // Every key of before that after has too was counted: the rest were deleted.
        var removed = kept == before.Count ? [] : before.Keys.Where(k => !after.ContainsKey(k)).ToArray();
        return new([.. set ?? []], removed);
    }

    /// <summary>Applies these changes to <paramref name="rows"/>.</summary>
    public void ApplyTo(Dictionary<TKey, TRow> rows)
    {
        ArgumentNullException.ThrowIfNull(rows);
        foreach (var key in Removed)
        {
            rows.Remove(key);
        }

        foreach (var (key, row) in Set)
        {
            rows[key] = row;
        }
    }
}

namespace Snapper.AtRest;

/// <summary>
/// Where actors' committed states rest while they are not active: one entry per actor, keyed by
/// it (docs/decisions.md, "Issue 52's plan"). Any silo may write an actor's entry and any may read
/// it, in any order: an entry keeps the highest version written, so a checkpoint, a deactivation
/// and a failover never need to agree who writes last; of one version, the highest
/// <see cref="StoredState.Sequence"/> (one version is one state, but what rests with it grows
/// while an actor only reads).
/// Implementations: <see cref="InMemoryStateStore"/> (tests, benchmarks),
/// <see cref="SqliteStateStore"/> (a keyed table in a file, one fsync per write) and, in
/// <c>SnapperTransactions.Logging.AzureTable</c>, <c>AzureTableStateStore</c> (an entity per actor).
/// </summary>
public interface IStateStore
{
    /// <summary>
    /// The entry of <paramref name="actor"/>, or null if none was ever written. An entry that does
    /// not check (a disk returned garbage) fails with <see cref="InvalidDataException"/>: it is never
    /// read as "no state".
    /// </summary>
    Task<StoredState?> ReadAsync(ActorId actor, CancellationToken cancellationToken);

    /// <summary>
    /// The entries of <paramref name="actors"/>, in their order (null where none was written), each as
    /// <see cref="ReadAsync(ActorId, CancellationToken)"/> reads it: a checkpoint reads the rows of
    /// every actor it writes. By default one read per actor, <see cref="ReadParallelism"/> at once; a
    /// store that can read many in one go does so.
    /// </summary>
    async Task<IReadOnlyList<StoredState?>> ReadManyAsync(IReadOnlyList<ActorId> actors, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(actors);
        var found = new StoredState?[actors.Count];
        await Parallel.ForAsync(
            0,
            actors.Count,
            new ParallelOptions { MaxDegreeOfParallelism = ReadParallelism, CancellationToken = cancellationToken },
            async (i, token) => found[i] = await ReadAsync(actors[i], token));
        return found;
    }

    /// <summary>How many reads <see cref="ReadManyAsync"/> runs at once by default.</summary>
    public const int ReadParallelism = 16;

    /// <summary>
    /// Writes <paramref name="states"/>, durable when the task completes. An entry keeps the highest
    /// (version, sequence) it was given: a state whose pair is not higher than the entry's leaves
    /// it as it is (an equal pair is the same write). A write that fails may have written some of them (a table service writes an entity at a
    /// time), and writing them again is harmless.
    /// </summary>
    Task WriteAsync(IReadOnlyList<StoredState> states, CancellationToken cancellationToken);

    /// <summary>True if <paramref name="state"/> replaces <paramref name="held"/>: a higher (version, sequence).</summary>
    public static bool Higher(StoredState state, StoredState held) =>
        state.Version > held.Version || (state.Version == held.Version && state.Sequence > held.Sequence);
}

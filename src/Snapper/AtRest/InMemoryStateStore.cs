using System.Collections.Concurrent;

namespace Snapper.AtRest;

/// <summary>Keeps states at rest in process memory: shared by the silos of one process, lost with it.</summary>
public sealed class InMemoryStateStore : IStateStore
{
    private readonly ConcurrentDictionary<ActorId, StoredState> entries = new();

    /// <summary>Entries held.</summary>
    public int Count => entries.Count;

    /// <inheritdoc />
    public Task<StoredState?> ReadAsync(ActorId actor, CancellationToken cancellationToken)
    {
        cancellationToken.ThrowIfCancellationRequested();
        return Task.FromResult<StoredState?>(entries.TryGetValue(actor, out var entry) ? entry : null);
    }

    /// <inheritdoc />
    public Task<IReadOnlyList<StoredState?>> ReadManyAsync(IReadOnlyList<ActorId> actors, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(actors);
        cancellationToken.ThrowIfCancellationRequested();
        return Task.FromResult<IReadOnlyList<StoredState?>>([.. actors.Select(actor => entries.TryGetValue(actor, out var entry) ? entry : (StoredState?)null)]);
    }

    /// <inheritdoc />
    /// <remarks>Each state is copied: the caller may reuse its buffer.</remarks>
    public Task WriteAsync(IReadOnlyList<StoredState> states, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(states);
        cancellationToken.ThrowIfCancellationRequested();
        foreach (var state in states)
        {
            var copy = state with { State = state.State.ToArray() };
            entries.AddOrUpdate(state.Actor, copy, (_, held) => IStateStore.Higher(copy, held) ? copy : held);
        }

        return Task.CompletedTask;
    }
}

using System.Collections.Concurrent;

namespace Snapper.Grains;

/// <summary>
/// The transactional actors active on this silo, by id: a checkpoint settles them, a failover asks
/// them to resolve what they hold of a departed silo, and tests find them here.
/// </summary>
internal sealed class ActiveActors
{
    private readonly ConcurrentDictionary<ActorId, object> active = new();

    // Activations that begin to go are seen through Orleans' diagnostics (DeactivationSignal): listen
    // before the first actor activates.
    static ActiveActors() => DeactivationSignal.EnsureSubscribed();

    /// <summary>The ids of the actors active now.</summary>
    public ICollection<ActorId> Ids => active.Keys;

    /// <summary>Actor <paramref name="actor"/>'s activation <paramref name="activation"/> has started.</summary>
    public void Add(ActorId actor, object activation) => active[actor] = activation;

    /// <summary>Activation <paramref name="activation"/> of <paramref name="actor"/> has ended (a newer one stays).</summary>
    public void Remove(ActorId actor, object activation) => active.TryRemove(new KeyValuePair<ActorId, object>(actor, activation));

    /// <summary>Whether <paramref name="actor"/> is active here.</summary>
    public bool Contains(ActorId actor) => active.ContainsKey(actor);

    /// <summary>The activation of <paramref name="actor"/> here, if any.</summary>
    public bool TryGet(ActorId actor, out object? activation) => active.TryGetValue(actor, out activation);
}

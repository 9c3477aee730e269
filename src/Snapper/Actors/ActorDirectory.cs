using System.Collections.Concurrent;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging;
using Snapper.Diagnostics;

namespace Snapper.Actors;

/// <summary>
/// Finds or activates actors by id, as the Orleans grain directory does: an actor is activated
/// on its first call and stays active. Implementations are created through dependency injection.
/// </summary>
internal sealed class ActorDirectory(ActorRegistry registry, IServiceProvider services, ILoggerFactory loggerFactory)
{
    private readonly ConcurrentDictionary<ActorId, Lazy<ActorActivation>> activations = new();
    private readonly ILogger diagnostics = loggerFactory.CreateLogger("Snapper.Actors");

    public int Count => activations.Count;

    /// <summary>The activation of <paramref name="id"/>, checked to be a <typeparamref name="TActor"/>.</summary>
    public ActorActivation Get<TActor>(ActorId id)
        where TActor : IActor
    {
        if (id.IsDefault)
        {
            throw new SnapperException($"default(ActorId) names no actor; create ids with ActorId.Create<{typeof(TActor).Name}>(key).");
        }

        if (!string.Equals(id.Type, typeof(TActor).FullName, StringComparison.Ordinal))
        {
            throw new SnapperException($"Actor id {id} names a {id.Type}, but it was called as a {typeof(TActor).FullName}.");
        }

        return Get(id);
    }

    /// <summary>The activation of <paramref name="id"/>; activates it on first use.</summary>
    public ActorActivation Get(ActorId id)
    {
        if (activations.TryGetValue(id, out var known))
        {
            return known.Value;
        }

        if (id.IsDefault || !registry.TryGet(id.Type, out var implementation))
        {
            throw new SnapperException(
                $"No actor implementation is registered for {(id.IsDefault ? "default(ActorId)" : id.Type)} (actor {id}). " +
                $"Register one with AddSnapper(snapper => snapper.AddActor<IYourActor, YourActor>()). Registered: {string.Join(", ", registry.Registered)}.");
        }

        // PublicationOnly: a failed activation is not cached, the next call tries again.
        var lazy = activations.GetOrAdd(id, key => new Lazy<ActorActivation>(() => Activate(key, implementation), LazyThreadSafetyMode.PublicationOnly));
        try
        {
            return lazy.Value;
        }
        catch
        {
            activations.TryRemove(new KeyValuePair<ActorId, Lazy<ActorActivation>>(id, lazy));
            throw;
        }
    }

    private ActorActivation Activate(ActorId id, Type implementation)
    {
        var instance = ActivatorUtilities.CreateInstance(services, implementation);
        if (instance is IActorBinding binding)
        {
            binding.Bind(id, services.GetRequiredService<SnapperRuntime>());
        }

        LogMessages.ActorActivated(diagnostics, id);
        return new ActorActivation(id, instance);
    }
}

using System.Collections.Concurrent;
using System.Globalization;

namespace Snapper.Grains;

/// <summary>
/// A transactional actor's <see cref="ActorId"/>: its transactional interface (the most derived one
/// its class implements) and its Orleans key, read according to that interface's key kind.
/// </summary>
internal static class ActorIdentity
{
    private static readonly ConcurrentDictionary<Type, Type> Interfaces = new();

    /// <summary>The id of <paramref name="grain"/>; throws <see cref="SnapperException"/> naming what its class lacks.</summary>
    public static ActorId Of(Grain grain)
    {
        var actorInterface = Interfaces.GetOrAdd(grain.GetType(), static type =>
        {
            var candidates = type.GetInterfaces()
                .Where(i => i != typeof(ITransactionalActor) && typeof(ITransactionalActor).IsAssignableFrom(i))
                .ToArray();
            var mostDerived = candidates.Where(c => !candidates.Any(o => o != c && c.IsAssignableFrom(o))).ToArray();
            return mostDerived.Length == 1
                ? mostDerived[0]
                : throw new SnapperException(
                    $"{type.FullName} must implement exactly one transactional actor interface (deriving from {nameof(ITransactionalActor)}); it implements {(mostDerived.Length == 0 ? "none" : string.Join(", ", mostDerived.Select(i => i.FullName)))}.");
        });

        var key = typeof(IGrainWithIntegerKey).IsAssignableFrom(actorInterface) ? grain.GetPrimaryKeyLong().ToString(CultureInfo.InvariantCulture)
            : typeof(IGrainWithStringKey).IsAssignableFrom(actorInterface) ? grain.GetPrimaryKeyString()
            : typeof(IGrainWithGuidKey).IsAssignableFrom(actorInterface) ? grain.GetPrimaryKey().ToString()
            : throw new SnapperException($"Actor interface {actorInterface.FullName} must also derive from an Orleans key interface: IGrainWithIntegerKey, IGrainWithStringKey or IGrainWithGuidKey.");
        return ActorId.Create(actorInterface, key);
    }
}

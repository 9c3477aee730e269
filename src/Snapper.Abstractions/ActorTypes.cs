using System.Collections.Concurrent;

namespace Snapper;

/// <summary>
/// Actor interface types by the name an <see cref="ActorId"/> carries, so an id that arrived in a
/// message or a log can be turned back into a grain reference. Filled by
/// <see cref="ActorId.Create(Type, string)"/>; a name never seen in this process is looked up once
/// in the loaded assemblies (a silo has loaded every grain interface it hosts).
/// </summary>
internal static class ActorTypes
{
    private static readonly ConcurrentDictionary<string, Type> Known = new(StringComparer.Ordinal);

    public static void Register(Type actorInterface) => Known.TryAdd(actorInterface.FullName!, actorInterface);

    public static Type? Resolve(string name)
    {
        if (Known.TryGetValue(name, out var known))
        {
            return known;
        }

        foreach (var assembly in AppDomain.CurrentDomain.GetAssemblies())
        {
            if (assembly.IsDynamic)
            {
                continue;
            }

            if (assembly.GetType(name, throwOnError: false) is { IsInterface: true } type && typeof(IActor).IsAssignableFrom(type))
            {
                Known.TryAdd(name, type);
                return type;
            }
        }

        return null;
    }
}

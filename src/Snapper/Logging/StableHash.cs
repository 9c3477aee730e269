namespace Snapper.Logging;

/// <summary>
/// FNV-1a over an actor id. <see cref="string.GetHashCode()"/> is randomized per process, but the
/// actor → logger map must be the same after a restart so recovery finds an actor's records.
/// </summary>
internal static class StableHash
{
    public static ulong Of(ActorId actor)
    {
        var hash = 14695981039346656037UL;
        hash = Mix(hash, actor.Type);
        hash = (hash ^ '/') * 1099511628211UL;
        return Mix(hash, actor.Key);
    }

    private static ulong Mix(ulong hash, string text)
    {
        foreach (var c in text)
        {
            hash = (hash ^ c) * 1099511628211UL;
        }

        return hash;
    }
}

namespace Snapper.LoadGen.Workloads;

/// <summary>The Orleans grain behind an <see cref="ActorId"/>, by the key kind of its interface (as Snapper resolves it).</summary>
public static class ActorGrains
{
    /// <summary>The grains of <paramref name="ids"/>, each of the one of <paramref name="interfaces"/> its id names.</summary>
    public static IAddressable[] Of(IGrainFactory grains, IEnumerable<ActorId> ids, params Type[] interfaces)
    {
        ArgumentNullException.ThrowIfNull(grains);
        ArgumentNullException.ThrowIfNull(ids);
        var byName = interfaces.ToDictionary(t => t.FullName!, StringComparer.Ordinal);
        return [.. ids.Select(id =>
        {
            var type = byName.TryGetValue(id.Type, out var known) ? known : throw new ArgumentException($"{id} is none of {string.Join(", ", byName.Keys)}.", nameof(ids));
            return typeof(IGrainWithIntegerKey).IsAssignableFrom(type)
                ? (IAddressable)grains.GetGrain(type, long.Parse(id.Key, System.Globalization.CultureInfo.InvariantCulture))
                : grains.GetGrain(type, id.Key);
        })];
    }
}

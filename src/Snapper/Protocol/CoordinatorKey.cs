using Snapper.Grains;

namespace Snapper.Protocol;

/// <summary>
/// The grain key of a coordinator: <c>{silo name}/{index}</c>. A silo runs
/// <see cref="Configuration.SnapperOptions.CoordinatorCount"/> coordinators, and
/// <see cref="SiloBoundPlacementDirector"/> places each one on the silo its key names, so a PACT's
/// first hop (the first actor's NewPact) stays on the actor's silo.
/// </summary>
internal static class CoordinatorKey
{
    public static string For(string silo, int index) => $"{silo}/{index.ToString(System.Globalization.CultureInfo.InvariantCulture)}";

    /// <summary>The silo name in <paramref name="key"/>; throws naming the key if it has none.</summary>
    public static string SiloOf(string key)
    {
        var slash = key.LastIndexOf('/');
        return slash > 0 ? key[..slash] : throw new ArgumentException($"'{key}' is not a coordinator key ({{silo}}/{{index}}).", nameof(key));
    }
}

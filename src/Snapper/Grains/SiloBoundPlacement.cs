using Orleans.Placement;
using Snapper.Protocol;

namespace Snapper.Grains;

/// <summary>
/// Placement for grains that belong to one silo, such as coordinators: the grain's string key
/// starts with the silo's name (<see cref="CoordinatorKey"/>), and
/// <see cref="SiloBoundPlacementDirector"/> activates it on that silo, whoever calls it first.
/// </summary>
[GenerateSerializer, Immutable, SuppressReferenceTracking]
internal sealed class SiloBoundPlacement : PlacementStrategy
{
    public static SiloBoundPlacement Instance { get; } = new();
}

/// <summary>Puts a grain class under <see cref="SiloBoundPlacement"/>.</summary>
[AttributeUsage(AttributeTargets.Class, AllowMultiple = false)]
internal sealed class SiloBoundPlacementAttribute : PlacementAttribute
{
    public SiloBoundPlacementAttribute()
        : base(SiloBoundPlacement.Instance)
    {
    }
}

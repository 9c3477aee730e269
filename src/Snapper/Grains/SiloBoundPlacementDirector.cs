using Orleans.Runtime.Placement;
using Snapper.Protocol;

namespace Snapper.Grains;

/// <summary>
/// Places a <see cref="SiloBoundPlacement"/> grain on the silo whose name its key starts with. A
/// grain of a silo that is not an active member cannot be placed: the call fails naming the silo,
/// rather than running that silo's coordinator somewhere else.
/// </summary>
internal sealed class SiloBoundPlacementDirector(IClusterMembershipService membership, ILocalSiloDetails local) : IPlacementDirector
{
    public Task<SiloAddress> OnAddActivation(PlacementStrategy strategy, PlacementTarget target, IPlacementContext context)
    {
        var silo = CoordinatorKey.SiloOf(target.GrainIdentity.Key.ToString()!);
        if (string.Equals(silo, local.Name, StringComparison.Ordinal))
        {
            return Task.FromResult(local.SiloAddress);
        }

        foreach (var member in membership.CurrentSnapshot.Members.Values)
        {
            if (member.Status == SiloStatus.Active && string.Equals(member.Name, silo, StringComparison.Ordinal))
            {
                return Task.FromResult(member.SiloAddress);
            }
        }

        throw new OrleansException($"Snapper cannot place {target.GrainIdentity}: silo '{silo}' is not an active member of the cluster.");
    }
}

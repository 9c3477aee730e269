using Microsoft.Extensions.Options;
using Snapper.Hosting;

namespace Snapper.Coordination;

/// <summary>
/// On a silo: this silo's own coordinators, so a PACT's first hop stays on the silo (Snapper §4.1.2:
/// the first actor picks a coordinator by a hash of its id) and tid ranges come from next door.
/// </summary>
internal sealed class SiloCoordinators(IGrainFactory grains, ILocalSiloDetails silo, IOptions<SnapperOptions> options) : ICoordinatorDirectory
{
    private readonly int count = options.Value.CoordinatorCount;

    public ValueTask<ICoordinator> ForPact(ActorId root) =>
        new(grains.GetGrain<ICoordinator>(CoordinatorKey.For(silo.Name, (int)(Logging.StableHash.Of(root) % (ulong)count))));

    public ValueTask<ICoordinator> ForTids() =>
        new(grains.GetGrain<ICoordinator>(CoordinatorKey.For(silo.Name, Random.Shared.Next(count))));
}

using Microsoft.Extensions.Options;
using Snapper.Hosting;

namespace Snapper.Coordination;

/// <summary>
/// On a silo: this silo's own coordinators, so a PACT's first hop stays on the silo (Snapper §4.1.2:
/// the first actor picks a coordinator by a hash of its id) and tid ranges come from next door.
/// </summary>
internal sealed class SiloCoordinators(CoordinatorReferences references, ILocalSiloDetails silo, IOptions<SnapperOptions> options) : ICoordinatorDirectory
{
    private readonly ICoordinator[] local = [.. Enumerable.Range(0, options.Value.CoordinatorCount).Select(i => references.Get(CoordinatorKey.For(silo.Name, i)))];

    public ValueTask<ICoordinator> ForPact(ActorId root) => new(local[(int)(Logging.StableHash.Of(root) % (ulong)local.Length)]);

    public ValueTask<ICoordinator> ForTids() => new(local[Random.Shared.Next(local.Length)]);

    public void Refresh()
    {
        // This silo's own coordinators: they live as long as the silo.
    }
}

using Microsoft.Extensions.Options;
using Snapper.Configuration;
using Snapper.Protocol;

namespace Snapper.Coordination;

/// <summary>
/// On a silo: this silo's own coordinators, so a PACT's first hop stays on the silo (Snapper §4.1.2:
/// the first actor picks a coordinator by a hash of its id) and tid ranges come from next door.
/// </summary>
internal sealed class SiloCoordinators(CoordinatorReferences references, ILocalSiloDetails silo, IOptions<SnapperOptions> options) : ICoordinatorDirectory
{
    private readonly (string Key, ICoordinator Coordinator)[] local =
        [.. Enumerable.Range(0, options.Value.CoordinatorCount).Select(i => CoordinatorKey.For(silo.Name, i)).Select(key => (key, references.Get(key)))];

    public ValueTask<(string Key, ICoordinator Coordinator)> ForPact(ActorId root) => new(local[(int)(Logging.StableHash.Of(root) % (ulong)local.Length)]);

    public ValueTask<ICoordinator> ForTids() => new(local[Random.Shared.Next(local.Length)].Coordinator);

    public void Refresh()
    {
        // This silo's own coordinators: they live as long as the silo.
    }
}

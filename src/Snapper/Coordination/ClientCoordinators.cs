using Snapper.Protocol;


namespace Snapper.Coordination;

/// <summary>
/// On a cluster client: any coordinator on the ring, from the ring membership's view, which is
/// fetched once and again when it is older than a few seconds (silos come and go).
/// </summary>
internal sealed class ClientCoordinators(IGrainFactory grains, CoordinatorReferences references, TimeProvider clock) : ICoordinatorDirectory
{
    private static readonly TimeSpan RefreshAfter = TimeSpan.FromSeconds(5);
    private (RingView View, DateTimeOffset At)? known;

    public async ValueTask<(string Key, ICoordinator Coordinator)> ForPact(ActorId root)
    {
        var members = await Members();
        var key = members[(int)(Logging.StableHash.Of(root) % (ulong)members.Length)];
        return (key, references.Get(key));
    }

    public async ValueTask<ICoordinator> ForTids()
    {
        var members = await Members();
        return references.Get(members[Random.Shared.Next(members.Length)]);
    }

    public void Refresh() => known = null;

    private async ValueTask<string[]> Members()
    {
        if (known is not { } current || clock.GetUtcNow() - current.At > RefreshAfter || current.View.Members.IsEmpty)
        {
            var view = await grains.GetGrain<IRingMembership>(0).View();
            if (view.Members.IsEmpty)
            {
                throw new SnapperException("The cluster has no Snapper coordinators: no silo with AddSnapper() has joined it.");
            }

            known = current = (view, clock.GetUtcNow());
        }

        return [.. current.View.Members];
    }
}

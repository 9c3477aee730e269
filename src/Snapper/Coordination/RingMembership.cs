using System.Collections.Immutable;
using Microsoft.Extensions.Logging;
using Snapper.Diagnostics;

namespace Snapper.Coordination;

/// <summary>
/// The ring's membership (<see cref="IRingMembership"/>), one grain for the cluster (key 0).
/// </summary>
/// <remarks>
/// <para>Kept active, and not reentrant, so joins and leaves are applied one at a time. If its silo
/// stops it activates elsewhere and rebuilds what it knew from the coordinators of the active
/// silos: who is there, and whether any of them has seen the token (then it must not make another).</para>
/// <para>Silos join in the order they start; the ring is that order, each silo's coordinators in index order.</para>
/// </remarks>
[CollectionAgeLimit(AlwaysActive = true)]
internal sealed class RingMembership(IClusterMembershipService cluster, ILogger<RingMembership> diagnostics) : Grain, IRingMembership
{
    private RingView view = RingView.Empty;
    private bool tokenIssued;

    /// <inheritdoc />
    public override async Task OnActivateAsync(CancellationToken cancellationToken)
    {
        await Task.Yield(); // never complete activation synchronously: see TransactionalActor.OnActivateAsync
        await Rebuild();
        await base.OnActivateAsync(cancellationToken);
    }

    public async Task<RingView> Join(string silo, int coordinators, long tidFloor)
    {
        var joining = Enumerable.Range(0, coordinators).Select(i => CoordinatorKey.For(silo, i)).Where(k => !view.Members.Contains(k));
        view = new RingView(view.Epoch + 1, [.. view.Members, .. joining], Math.Max(view.TidFloor, tidFloor));
        await Publish(view.Members);
        if (!tokenIssued)
        {
            tokenIssued = true;
            var token = new BatchToken { LastTid = view.TidFloor, View = view };
            await GrainFactory.GetGrain<ICoordinator>(view.Members[0]).PassToken(token);
        }

        return view;
    }

    public async Task<RingView> Leave(string silo)
    {
        var before = view.Members;
        view = view with { Epoch = view.Epoch + 1, Members = [.. before.Where(k => CoordinatorKey.SiloOf(k) != silo)] };
        await Publish(before); // the leaving coordinators learn it too, and hand the token on
        return view;
    }

    public Task<RingView> View() => Task.FromResult(view);

    private async Task Publish(ImmutableArray<string> to)
    {
        await Task.WhenAll(to.Select(async member =>
        {
            try
            {
                await GrainFactory.GetGrain<ICoordinator>(member).UpdateView(view);
            }
            catch (Exception e)
            {
                LogMessages.CoordinatorMessageFailed(diagnostics, e, "ring membership", member);
            }
        }));
    }

    private async Task Rebuild()
    {
        var members = new List<string>();
        var epoch = 0L;
        foreach (var silo in cluster.CurrentSnapshot.Members.Values.Where(m => m.Status == SiloStatus.Active).OrderBy(m => m.SiloAddress.Generation))
        {
            try
            {
                var first = await GrainFactory.GetGrain<ICoordinator>(CoordinatorKey.For(silo.Name, 0)).Status();
                var keys = Enumerable.Range(0, first.SiloCoordinators).Select(i => CoordinatorKey.For(silo.Name, i)).ToList();
                var statuses = await Task.WhenAll(keys.Select(k => GrainFactory.GetGrain<ICoordinator>(k).Status()));
                if (statuses.Any(s => s.ViewEpoch > 0))
                {
                    members.AddRange(keys); // joined before this grain moved; a silo not joined yet joins itself
                }

                tokenIssued |= statuses.Any(s => s.SawToken);
                epoch = Math.Max(epoch, statuses.Max(s => s.ViewEpoch));
            }
            catch (Exception e)
            {
                LogMessages.CoordinatorMessageFailed(diagnostics, e, "ring membership", CoordinatorKey.For(silo.Name, 0));
            }
        }

        if (members.Count > 0)
        {
            view = new RingView(epoch + 1, [.. members], 0);
            await Publish(view.Members);
        }
    }
}

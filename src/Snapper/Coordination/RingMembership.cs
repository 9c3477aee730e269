using System.Collections.Immutable;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;
using Snapper.Diagnostics;
using Snapper.Failover;
using Snapper.Configuration;
using Snapper.Protocol;

namespace Snapper.Coordination;

/// <summary>
/// The ring's membership (<see cref="IRingMembership"/>), one grain for the cluster (key 0).
/// </summary>
/// <remarks>
/// <para>Kept active, and not reentrant, so joins and leaves are applied one at a time. If its silo
/// stops it activates elsewhere and rebuilds what it knew from the coordinators of the active
/// silos: the newest view any of them has, and whether any of them has seen the token (then it must
/// not make another).</para>
/// <para>Silos join in the order they start; the ring is that order, each silo's coordinators in index order.</para>
/// </remarks>
[CollectionAgeLimit(AlwaysActive = true)]
internal sealed class RingMembership(
    IClusterMembershipService cluster,
    IOptions<SnapperOptions> options,
    TimeProvider clock,
    ILogger<RingMembership> diagnostics) : Grain, IRingMembership
{
    private static readonly TimeSpan ResolvePoll = TimeSpan.FromMilliseconds(50);
    // Silos by incarnation (SiloAddress), not by name: a silo may come back under its name, and the
    // survivors' report of its old self's death may reach this grain before or after its join.
    private readonly HashSet<string> failedOver = new(StringComparer.Ordinal);
    private readonly Dictionary<string, string> joined = new(StringComparer.Ordinal); // silo name → incarnation in the ring
    private RingView view = RingView.Empty;
    private bool tokenIssued;

    /// <inheritdoc />
    public override async Task OnActivateAsync(CancellationToken cancellationToken)
    {
        await Task.Yield(); // never complete activation synchronously: see TransactionalActor.OnActivateAsync
        await Rebuild();
        await base.OnActivateAsync(cancellationToken);
    }

    public async Task<RingView> Join(string silo, string incarnation, int coordinators, long tidFloor)
    {
        if (joined.TryGetValue(silo, out var before) && before != incarnation && view.Members.Any(k => CoordinatorKey.SiloOf(k) == silo))
        {
            // Its earlier self is still in the ring: it died (two silos of one name cannot both be
            // active), and the survivors have not reported it yet. Fail it over before the new one
            // takes its coordinators' keys; the report, when it comes, finds it done.
            await FailOver(silo, before);
        }

        joined[silo] = incarnation;
        var joining = Enumerable.Range(0, coordinators).Select(i => CoordinatorKey.For(silo, i)).Where(k => !view.Members.Contains(k));
        view = new RingView(view.Epoch + 1, [.. view.Members, .. joining], Math.Max(view.TidFloor, tidFloor)) { Incarnations = view.Incarnations.SetItem(silo, incarnation) };
        await Publish(view.Members);
        if (!tokenIssued)
        {
            tokenIssued = true;
            var token = new BatchToken { LastTid = view.TidFloor, View = view, Generation = view.Epoch, Passes = 1 };
            await GrainFactory.GetGrain<ICoordinator>(view.Members[0]).PassToken(token, token.Passes);
            _ = DeliverOwed(deadIncarnation: null, joining: silo); // logs of silos of an earlier run that are not back
        }

        return view;
    }

    public async Task<RingView> Leave(string silo)
    {
        var before = view.Members;
        view = view with { Epoch = view.Epoch + 1, Members = [.. before.Where(k => CoordinatorKey.SiloOf(k) != silo)], Incarnations = view.Incarnations.Remove(silo) };
        await Publish(before); // the leaving coordinators learn it too, and hand the token on
        return view;
    }

    public Task<RingView> View() => Task.FromResult(view);

    // The failover, step by step, each finished on every survivor before the next (the
    // architecture document says why each is needed): halt the coordinators, flush the surviving
    // logs, read the logs, seal, let the surviving batches resolve, settle the actors, new token.
    public Task Departed(string silo, string incarnation) => FailOver(silo, incarnation);

    private async Task FailOver(string silo, string incarnation)
    {
        if (!failedOver.Add(incarnation))
        {
            return;
        }

        var started = clock.GetTimestamp();
        try
        {
            // By address: a silo of the same name that has come back survives (its coordinators'
            // keys are the dead one's, and stay in the ring).
            var alive = Incarnations(silo, incarnation);
            var survivors = alive.Keys.ToHashSet(StringComparer.Ordinal);
            var members = view.Members.Where(k => survivors.Contains(CoordinatorKey.SiloOf(k))).ToImmutableArray();
            var epoch = view.Epoch + 1;

            var known = await Task.WhenAll(members.Select(k => Coordinator(k).Halt(silo, epoch)));
            var unresolved = (await Task.WhenAll(members.Select(k => Coordinator(k).Status()))).Sum(s => s.Unresolved);
            await Task.WhenAll(survivors.Select(s => GrainFactory.GetGrain<Checkpointing.ISiloCheckpoint>(Checkpointing.SiloCheckpoint.KeyOf(s)).Flush()));
            var logged = await Task.WhenAll(survivors.Select(s => SiloFailover(s).Evaluate(silo, incarnation)));
            var through = new[] { view.TidFloor, known.DefaultIfEmpty().Max(), logged.DefaultIfEmpty().Max() }.Max();
            await Task.WhenAll(survivors.Select(s => SiloFailover(s).Seal(silo, incarnation, through)));
            await Task.WhenAll(members.Select(k => Coordinator(k).FailOver(through)));
            await WaitResolved(silo, members);
            await Task.WhenAll(survivors.Select(s => SiloFailover(s).Sweep(silo)));

            view = new RingView(epoch, members, through) { Incarnations = alive.Where(a => members.Any(k => CoordinatorKey.SiloOf(k) == a.Key)).ToImmutableDictionary(StringComparer.Ordinal) };
            await Publish(view.Members);
            if (!members.IsEmpty)
            {
                tokenIssued = true;
                var token = new BatchToken { LastTid = through, ReservedThrough = through, ResolvedThrough = through, View = view, Generation = view.Epoch, Passes = 1 };
                await Coordinator(members[0]).PassToken(token, token.Passes);
            }

            LogMessages.FailoverDone(diagnostics, silo, clock.GetElapsedTime(started), unresolved, members.Length, through);
            _ = DeliverOwed(incarnation);
        }
        catch
        {
            failedOver.Remove(incarnation); // the survivors report it again
            throw;
        }
    }

    // The silos that survive the failover of incarnation `dead` of silo `silo`, by name, each with the
    // incarnation the ring names for it: the one that joined (this grain's record, not the
    // membership list, which may lag behind a silo that came back), or, for the dead silo's name
    // and for a silo not joined yet, the newest active one of that name.
    private Dictionary<string, string> Incarnations(string silo, string dead)
    {
        var survivors = new Dictionary<string, string>(StringComparer.Ordinal);
        foreach (var name in cluster.CurrentSnapshot.Members.Values
            .Where(m => m.Status == SiloStatus.Active && m.SiloAddress.ToParsableString() != dead)
            .GroupBy(m => m.Name, StringComparer.Ordinal))
        {
            survivors[name.Key] = name.Key != silo && view.Incarnations.TryGetValue(name.Key, out var joinedAs)
                ? joinedAs
                : name.MaxBy(m => m.SiloAddress.Generation)!.SiloAddress.ToParsableString();
        }

        return survivors;
    }

    // The survivors' batches resolve once the dead coordinators' outcomes are known (sealed above).
    // Bounded, so a batch stuck for another reason cannot keep the ring down: the new token goes out
    // anyway, and the declaration sweep deals with the stuck batch.
    private async Task WaitResolved(string silo, ImmutableArray<string> members)
    {
        var limit = 2 * options.Value.TransactionTimeout;
        var since = clock.GetTimestamp();
        while ((await Task.WhenAll(members.Select(k => Coordinator(k).Status()))).Any(s => s.Unresolved > 0))
        {
            if (clock.GetElapsedTime(since) > limit)
            {
                LogMessages.FailoverUnresolved(diagnostics, silo, limit);
                return;
            }

            await Task.Delay(ResolvePoll, clock);
        }
    }

    private ICoordinator Coordinator(string key) => GrainFactory.GetGrain<ICoordinator>(key);

    // What the logs of silos no longer alive still owe (after-commit actions): delivered by the first
    // live silo by name (the heir), without the ring waiting for its read of every log. A live
    // silo, one still joining included, delivers its own logs' at its start. Tried a few times, and
    // again at the next failover, which finds whatever is still owed.
    private async Task DeliverOwed(string? deadIncarnation, string? joining = null)
    {
        var alive = cluster.CurrentSnapshot.Members.Values
            .Where(m => m.Status != SiloStatus.Dead && m.SiloAddress.ToParsableString() != deadIncarnation)
            .Select(m => m.Name)
            .Append(joining)
            .OfType<string>()
            .Distinct(StringComparer.Ordinal)
            .Order(StringComparer.Ordinal)
            .ToImmutableArray();
        var heir = cluster.CurrentSnapshot.Members.Values.Where(m => m.Status == SiloStatus.Active).Select(m => m.Name).Append(joining).OfType<string>().Order(StringComparer.Ordinal).FirstOrDefault();
        if (heir is null)
        {
            return;
        }

        for (var attempt = 1; ; attempt++)
        {
            try
            {
                await SiloFailover(heir).DeliverOwed(alive);
                return;
            }
            catch (Exception e) when (attempt < 3)
            {
                LogMessages.CoordinatorMessageFailed(diagnostics, e, "ring membership", heir);
                await Task.Delay(TimeSpan.FromSeconds(attempt), clock);
            }
            catch (Exception e)
            {
                LogMessages.CoordinatorMessageFailed(diagnostics, e, "ring membership", heir);
                return;
            }
        }
    }

    private ISiloFailover SiloFailover(string silo) => GrainFactory.GetGrain<ISiloFailover>(Failover.SiloFailover.KeyOf(silo));

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

    // The view is the newest any active coordinator has, as it is: a silo that died with this grain
    // stays in it until its failover, which halts the ring before it publishes a view without it.
    // Published earlier, a coordinator whose pass to the dead silo went unanswered would pass the
    // token along it to another, while the dead silo, if only paused, may still take the first
    // pass when it wakes: two holders, handing out the same tids.
    private async Task Rebuild()
    {
        var newest = RingView.Empty;
        foreach (var silo in cluster.CurrentSnapshot.Members.Values.Where(m => m.Status == SiloStatus.Active).OrderBy(m => m.SiloAddress.Generation))
        {
            try
            {
                var first = await GrainFactory.GetGrain<ICoordinator>(CoordinatorKey.For(silo.Name, 0)).Status();
                var keys = Enumerable.Range(0, first.SiloCoordinators).Select(i => CoordinatorKey.For(silo.Name, i)).ToList();
                var statuses = await Task.WhenAll(keys.Select(k => GrainFactory.GetGrain<ICoordinator>(k).Status()));
                if (statuses.Any(s => s.ViewEpoch > 0))
                {
                    joined[silo.Name] = silo.SiloAddress.ToParsableString(); // joined before this grain moved; a silo not joined yet joins itself
                }

                newest = statuses.Select(s => s.View).Aggregate(newest, RingView.Newer);
            }
            catch (Exception e)
            {
                LogMessages.CoordinatorMessageFailed(diagnostics, e, "ring membership", CoordinatorKey.For(silo.Name, 0));
            }
        }

        // The ring's own record of who joined as what, where the view has it.
        foreach (var (name, incarnation) in newest.Incarnations)
        {
            joined[name] = incarnation;
        }

        // A ring existed, so a token was issued: a coordinator that saw it may be on a silo not
        // read here, and the failover of this grain's silo makes a new one anyway (FailOver).
        tokenIssued |= newest.Epoch > 0;

        // A silo in the view that is not active died (or is stopping) with this grain: its
        // incarnation, for a silo of its name that joins before its failover (Join); not one of
        // its name already back and not joined yet.
        foreach (var name in newest.Members.Select(CoordinatorKey.SiloOf).Distinct(StringComparer.Ordinal).Where(n => !joined.ContainsKey(n)))
        {
            if (cluster.CurrentSnapshot.Members.Values.Where(m => m.Name == name && m.Status != SiloStatus.Active).MaxBy(m => m.SiloAddress.Generation) is { } last)
            {
                joined[name] = last.SiloAddress.ToParsableString();
            }
        }

        view = newest;
    }
}

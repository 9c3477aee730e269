using Microsoft.Extensions.DependencyInjection;
using Snapper.Logging;
using Snapper.Tests.Infrastructure;
using Snapper.Protocol;

namespace Snapper.Tests.Regression;

/// <summary>
/// A silo dies and comes straight back under its name (a restarted pod of a stateful set). The new
/// silo's join and the survivors' reports of the old one's death reach the ring in any order. The
/// ring knew silos by name only, so a report that came after the join failed over the silo that
/// had just joined: its coordinators left the ring while it served.
/// </summary>
public sealed class SiloRejoinRegressionTests
{
    private static readonly TimeSpan Bound = TimeSpan.FromSeconds(60);

    [Fact]
    public async Task A_silo_that_dies_and_comes_back_under_its_name_is_in_the_ring_once_its_old_self_is_failed_over()
    {
        var storage = new InMemoryLogStorage(); // shared: the survivors fail the dead silo over from its logs
        await using var cluster = await TestSilo.StartAsync(services: services => services.AddSingleton<ILogStorage>(storage), silos: 2);
        var victim = cluster.Cluster.Silos[1];
        var ids = Enumerable.Range(0, 16).Select(i => ActorId.Create<ITestActor>($"a{i}")).ToArray();
        foreach (var id in ids)
        {
            await cluster.Client.RunPact<ITestActor>(id, (a, ctx) => a.Add(ctx, 1), AccessSet.Of(id)).WaitAsync(Bound);
        }

        var coordinators = (await cluster.Grains.GetGrain<IRingMembership>(0).View()).Members.Count(k => CoordinatorKey.SiloOf(k) == victim.Name);
        Assert.True(coordinators > 0);
        await cluster.Cluster.KillSiloAsync(victim);
        var back = await cluster.Cluster.RestartSiloAsync(victim);
        Assert.Equal(victim.Name, back?.Name);

        // Both reach the ring, in whichever order: the view settles with the silo's coordinators in it.
        await Poll.Until(
            async () => (await cluster.Grains.GetGrain<IRingMembership>(0).View()).Members.Count(k => CoordinatorKey.SiloOf(k) == victim.Name) == coordinators,
            "the ring has the silo that came back");
        // A survivor whose report of the old silo's death was delivered but not answered sends it
        // again (DepartedSilos.Report); it must not take the new silo out of the ring.
        await cluster.Grains.GetGrain<IRingMembership>(0).Departed(victim.Name, victim.SiloAddress.ToParsableString()).WaitAsync(Bound);
        var view = await cluster.Grains.GetGrain<IRingMembership>(0).View();
        Assert.Equal(coordinators, view.Members.Count(k => CoordinatorKey.SiloOf(k) == victim.Name));

        // PACTs through every coordinator commit, on every actor.
        foreach (var id in ids)
        {
            await cluster.Client.RunPact<ITestActor>(id, (a, ctx) => a.Add(ctx, 1), AccessSet.Of(id)).WaitAsync(Bound);
            Assert.Equal(2, await cluster.Client.RunAct<ITestActor, int>(id, (a, ctx) => a.Read(ctx)).WaitAsync(Bound));
        }
    }
}

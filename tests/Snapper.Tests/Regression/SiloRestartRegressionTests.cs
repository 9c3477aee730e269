using Microsoft.Extensions.DependencyInjection;
using Snapper.Coordination;
using Snapper.Failover;
using Snapper.Logging;
using Snapper.Tests.Infrastructure;
using Snapper.Protocol;

namespace Snapper.Tests.Regression;

/// <summary>
/// A silo dies with a batch of its coordinator undecided; the failover aborts it. Then a silo of
/// the same name joins (a restarted pod of a stateful set keeps its name). Its coordinators start
/// afresh and know nothing of their predecessors' batches, and a coordinator answers "committed"
/// for a batch of its own it does not know (it forgets the committed ones). Asked about the
/// aborted batch, it said committed: an actor still waiting for that batch, or a moved PACT root's
/// caller, would have committed what the failover rolled back.
/// </summary>
public sealed class SiloRestartRegressionTests
{
    private static readonly TimeSpan Bound = TimeSpan.FromSeconds(60);

    [Fact]
    public async Task A_batch_the_failover_aborted_stays_aborted_once_a_silo_of_the_same_name_is_back()
    {
        var storage = new ScriptedLogStorage();
        await using var cluster = await TestSilo.StartAsync(
            s => s.Configure(o => o.CoordinatorCount = 1),
            services => services.AddSingleton<ILogStorage>(storage),
            silos: 2);
        var survivor = cluster.Cluster.Silos[0];
        var victim = cluster.Cluster.Silos[1];
        var root = await RootOnWithCoordinatorOn(cluster, survivor.Name, victim.Name);

        // The PACT's batch, emitted by the victim's coordinator, completes; its BatchCommit is held.
        var commit = storage.Hold(r => r is BatchCommitRecord);
        (long Bid, string Coordinator) batch = (0, "");
        var pact = cluster.Client.RunPact<ITestActor>(
            root,
            (a, ctx) =>
            {
                batch = (ctx.Bid, ctx.Coordinator!);
                return a.Add(ctx, 1);
            },
            AccessSet.Of(root));
        Assert.StartsWith($"snapper-{victim.Name}-", await commit.Arrived);

        // The victim dies before the record is durable: the failover aborts the batch, and the
        // root, on the survivor, rolls it back.
        await cluster.Cluster.KillSiloAsync(victim);
        commit.Fail();
        await Assert.ThrowsAnyAsync<Exception>(() => pact.WaitAsync(Bound));
        await Poll.Until(
            async () => !(await cluster.Grains.GetGrain<IRingMembership>(0).View()).Members.Any(k => CoordinatorKey.SiloOf(k) == victim.Name),
            "the ring re-forms without the victim");
        Assert.False((await cluster.BatchOutcome(batch.Bid, batch.Coordinator).WaitAsync(Bound)).Committed);

        // A silo of the victim's name joins; the batch is still aborted.
        var back = await cluster.Cluster.RestartSiloAsync(victim); // a new silo of the same instance number (and name)
        Assert.Equal(victim.Name, back?.Name);
        var departed = cluster.Services.GetRequiredService<DepartedSilos>();
        await Poll.Until(() => departed.IsActive(victim.Name), "the survivor sees the new silo active");
        Assert.False((await cluster.BatchOutcome(batch.Bid, batch.Coordinator).WaitAsync(Bound)).Committed);

        // Asked on the new silo itself, which took no part in the failover: its coordinator of that
        // key did not emit the batch, and answers from the logs.
        var there = back!.ServiceProvider.GetRequiredService<CoordinatorReferences>();
        Assert.False((await there.WaitResolved(batch.Coordinator, batch.Bid).WaitAsync(Bound)).Committed);
        Assert.Equal(0, await cluster.Client.RunAct<ITestActor, int>(root, (a, ctx) => a.Read(ctx)));
    }

    // An actor active on silo `on` whose PACTs the client sends to a coordinator of silo `coordinatedBy`.
    private static async Task<ActorId> RootOnWithCoordinatorOn(TestSilo cluster, string on, string coordinatedBy)
    {
        var members = (await cluster.Grains.GetGrain<IRingMembership>(0).View()).Members;
        for (var i = 0; i < 1000; i++)
        {
            var id = ActorId.Create<ITestActor>($"x{i}");
            if (CoordinatorKey.SiloOf(members[(int)(Snapper.Logging.StableHash.Of(id) % (ulong)members.Length)]) != coordinatedBy)
            {
                continue;
            }

            await cluster.Client.RunAct<ITestActor, int>(id, (a, ctx) => a.Read(ctx)); // activates it
            if (cluster.SiloOf(id) == on)
            {
                return id;
            }
        }

        throw new InvalidOperationException($"no actor active on {on} with a coordinator on {coordinatedBy}");
    }
}

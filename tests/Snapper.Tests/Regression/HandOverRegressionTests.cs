using Microsoft.Extensions.DependencyInjection;
using Snapper.Recovery;
using Snapper.Tests.Infrastructure;

namespace Snapper.Tests.Regression;

/// <summary>
/// An actor that moves takes its committed state from the silo it left (<see cref="IStateHandoff"/>).
/// That silo gives the state away with its answer, so a lost answer must not leave the actor to
/// start from an older state: every write it committed would be gone from the live system.
/// </summary>
public sealed class HandOverRegressionTests
{
    [Fact]
    public async Task A_moved_actor_whose_hand_over_answer_is_lost_keeps_its_committed_state()
    {
        var filter = new LoseOneHandOverAnswer();
        await using var cluster = await TestSilo.StartAsync(services: s => s.AddSingleton<IOutgoingGrainCallFilter>(filter), silos: 2);
        var x = ActorId.Create<ITestActor>("x");
        await cluster.Client.RunAct<ITestActor>(x, (a, ctx) => a.Add(ctx, 5));

        var from = cluster.SiloOf(x)!;
        var to = cluster.Cluster.Silos.First(s => s.Name != from);
        filter.Arm();
        await cluster.Cluster.MigrateAsync(cluster.Grains.GetGrain<ITestActor>(x.Key), to.SiloAddress);

        Assert.Equal(5, await Read(cluster, x));
        Assert.True(filter.Lost, "no hand-over answer was lost: the test tested nothing");
    }

    private static Task<int> Read(TestSilo cluster, ActorId id) => cluster.Client.RunAct<ITestActor, int>(id, (a, ctx) => a.Read(ctx));

    // Lets the next hand-over run, then loses its answer, as a response timeout does.
    private sealed class LoseOneHandOverAnswer : IOutgoingGrainCallFilter
    {
        private int armed;

        public bool Lost { get; private set; }

        public void Arm() => Volatile.Write(ref armed, 1);

        public async Task Invoke(IOutgoingGrainCallContext context)
        {
            await context.Invoke();
            if (context.InterfaceMethod?.DeclaringType == typeof(IStateHandoff) && Interlocked.Exchange(ref armed, 0) == 1)
            {
                Lost = true;
                throw new TimeoutException("the test lost the hand-over's answer");
            }
        }
    }
}

using Microsoft.Extensions.DependencyInjection;
using Snapper.Tests.Infrastructure;

namespace Snapper.Tests.Pact;

/// <summary>A coordinator's own silo hands it NewPact and BatchComplete in process (<see cref="Snapper.Coordination.CoordinatorInboxes"/>).</summary>
public sealed class CoordinatorInboxTests
{
    private static readonly TimeSpan Bound = TimeSpan.FromSeconds(30);

    [Fact]
    public async Task PACTs_started_on_a_silo_reach_its_coordinators_in_process_and_commit()
    {
        await using var silo = await TestSilo.StartAsync();
        var onSilo = silo.Services.GetRequiredService<ISnapperClient>(); // the silo's own client, as a grain or the host has it
        var (a, b) = (ActorId.Create<ITestActor>("inbox-a"), ActorId.Create<ITestActor>("inbox-b"));

        await Task.WhenAll(Enumerable.Range(0, 10).Select(_ =>
            onSilo.RunPact<ITestActor>(a, (x, ctx) => x.AddThenCall(ctx, 1, b, 2), AccessSet.Of(a).And(b)))).WaitAsync(Bound);

        // Ten NewPacts from the silo's client, and two BatchCompletes (one per actor) per batch at least.
        var (newPacts, batchCompletes) = silo.Inboxes.Posted;
        Assert.Equal(10, newPacts);
        Assert.True(batchCompletes >= 2, $"{batchCompletes} BatchCompletes went in process");
        var read = await Task.WhenAll(new[] { a, b }.Select(id => silo.Client.RunAct<ITestActor, int>(id, (x, ctx) => x.Read(ctx))));
        Assert.Equal([10, 20], read);
    }
}

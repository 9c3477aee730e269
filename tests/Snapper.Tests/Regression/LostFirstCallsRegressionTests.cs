using Microsoft.Extensions.DependencyInjection;
using Snapper.Coordination;
using Snapper.Tests.Infrastructure;

namespace Snapper.Tests.Regression;

/// <summary>
/// Issue 50: many PACTs placed whose first call never comes (a client gone after placing them, an
/// answer held past the response timeout that made Orleans drop the calls queued behind it) stall
/// their batches and, through the commit order, every later batch. The declaration sweep aborted
/// one of them a sweep (the first stalled PACT of the oldest overdue batch), so the ring waited a
/// sweep period per lost call: forty of them held every PACT after them for about ten seconds here,
/// and, with the default timeouts, for forty seconds.
/// </summary>
public sealed class LostFirstCallsRegressionTests
{
    private const int Lost = 40;
    private static readonly TimeSpan DeclarationTimeout = TimeSpan.FromSeconds(1); // a sweep every 250 ms

    [Fact]
    public async Task PACTs_placed_on_many_actors_and_never_called_are_aborted_in_one_sweep_not_one_a_sweep()
    {
        await using var silo = await TestSilo.StartAsync(s => s.Configure(o =>
        {
            o.CoordinatorCount = 1;
            o.DeclarationTimeout = DeclarationTimeout;
        }));
        var actors = Enumerable.Range(0, Lost).Select(i => ActorId.Create<ITestActor>($"lost-{i}")).ToArray();

        // Placed together, so their batches hold them on as many actors, each the PACT whose turn it is there.
        var (_, coordinator) = await silo.Services.GetRequiredService<ICoordinatorDirectory>().ForPact(actors[0]);
        await Task.WhenAll(actors.Select(actor => coordinator.NewPact(actor, AccessSet.Of(actor))));

        // A PACT on each of those actors, behind them: once the stalled ones pass their declaration
        // timeout, one sweep aborts them all, and these commit. One a sweep, the last would wait
        // for forty sweeps (ten seconds) past the timeout, far beyond the bound.
        var behind = actors.Select(actor => silo.Client.RunPact<ITestActor>(actor, (a, ctx) => a.Add(ctx, 1), AccessSet.Of(actor))).ToArray();
        var all = Task.WhenAll(behind);
        var ended = await Task.WhenAny(all, Task.Delay(6 * DeclarationTimeout));
        Assert.True(ended == all, $"{behind.Count(t => !t.IsCompleted)} of {Lost} PACTs behind the lost ones had not ended {6 * DeclarationTimeout} after they were sent");
        await all;

        foreach (var actor in actors)
        {
            Assert.Equal(1, await silo.Client.RunAct<ITestActor, int>(actor, (a, ctx) => a.Read(ctx)).WaitAsync(TimeSpan.FromSeconds(10)));
        }
    }
}

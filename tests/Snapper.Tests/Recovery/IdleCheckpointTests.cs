using Snapper.Logging;
using Snapper.Tests.Infrastructure;

namespace Snapper.Tests.Recovery;

/// <summary>Scheduled checkpoint rounds run while transactions log, and stop while nothing does.</summary>
public sealed class IdleCheckpointTests
{
    private static readonly TimeSpan Interval = TimeSpan.FromSeconds(1); // the shortest allowed
    private static readonly TimeSpan Bound = TimeSpan.FromSeconds(20);

    [Fact]
    public async Task An_idle_silo_skips_its_checkpoint_rounds_until_a_transaction_logs_again()
    {
        await using var silo = await TestSilo.StartAsync(s => s.Configure(o => o.CheckpointInterval = Interval));
        var (a, b) = (ActorId.Create<ITestActor>("idle-a"), ActorId.Create<ITestActor>("idle-b"));
        await silo.Client.RunPact<ITestActor>(a, (x, ctx) => x.AddThenCall(ctx, 1, b, 1), AccessSet.Of(a).And(b)).WaitAsync(Bound);

        // The rounds that take the PACT's records run; then the silo is idle.
        await Poll.Until(async () => await LastRound(silo) > 0, "no checkpoint round ran after the PACT");
        var settled = await LastRoundOnceStill(silo);

        // Four intervals with nothing logged: no round seals the logs again.
        await Task.Delay(4 * Interval);
        Assert.Equal(settled, await LastRound(silo));

        // A transaction logs again: the next round runs.
        await silo.Client.RunPact<ITestActor>(a, (x, ctx) => x.AddThenCall(ctx, 1, b, 1), AccessSet.Of(a).And(b)).WaitAsync(Bound);
        await Poll.Until(async () => await LastRound(silo) > settled, "no checkpoint round ran after new records");
    }

    // The round of the newest seal in the logs (rounds are numbered by their start time).
    private static async Task<long> LastRound(TestSilo silo) =>
        (await silo.LogRecords()).OfType<CheckpointSealRecord>().Select(seal => seal.Tid).DefaultIfEmpty(0).Max();

    // Rounds already under way when the PACT's last records were written may follow the first one.
    private static async Task<long> LastRoundOnceStill(TestSilo silo)
    {
        var last = await LastRound(silo);
        for (var (stillFor, looks) = (0, 0); stillFor < 2 && looks < 20; looks++)
        {
            await Task.Delay(Interval);
            var now = await LastRound(silo);
            (stillFor, last) = now == last ? (stillFor + 1, last) : (0, now);
        }

        return last;
    }
}

using Snapper.Configuration;
using Snapper.Coordination;

namespace Snapper.Tests.Hybrid;

/// <summary>
/// The deadlock timeout follows the silo's typical batch latency, from the configured floor up to a
/// quarter of the shorter of the declaration and transaction timeouts.
/// </summary>
public sealed class BatchLatencyTests
{
    private static readonly SnapperOptions Options = new()
    {
        DeadlockTimeout = TimeSpan.FromMilliseconds(20),
        DeclarationTimeout = TimeSpan.FromSeconds(10),
        TransactionTimeout = TimeSpan.FromSeconds(30),
    };

    [Fact]
    public void Fast_batches_keep_the_configured_timeout()
    {
        var latency = new BatchLatency(new ManualClock());
        Assert.Equal(Options.DeadlockTimeout, latency.DeadlockTimeout(Options));
        latency.Observe(TimeSpan.FromMilliseconds(2));
        Assert.Equal(Options.DeadlockTimeout, latency.DeadlockTimeout(Options));
    }

    [Fact]
    public void Slow_batches_stretch_the_timeout_to_several_of_them_and_it_shrinks_back_when_they_speed_up()
    {
        var latency = new BatchLatency(new ManualClock()); // no pause of the test counts as time without batches
        Observe(latency, BatchLatency.Quorum, TimeSpan.FromMilliseconds(100));
        Assert.Equal(TimeSpan.FromMilliseconds(100 * BatchLatency.Multiple), latency.DeadlockTimeout(Options));

        for (var i = 0; i < BatchLatency.Window; i++)
        {
            latency.Observe(TimeSpan.FromMilliseconds(1));
        }

        Assert.Equal(Options.DeadlockTimeout, latency.DeadlockTimeout(Options));
    }

    [Fact]
    public void Batches_held_up_by_deadlocks_do_not_stretch_the_timeout_that_holds_up_the_next()
    {
        // The loop a mean made: each batch held for the whole timeout raised the next timeout.
        var latency = new BatchLatency(new ManualClock());
        for (var i = 0; i < 200; i++)
        {
            var held = i % 3 == 2;
            latency.Observe(held ? latency.DeadlockTimeout(Options) + TimeSpan.FromMilliseconds(50) : TimeSpan.FromMilliseconds(50));
        }

        Assert.Equal(TimeSpan.FromMilliseconds(50), latency.Typical);
        Assert.Equal(TimeSpan.FromMilliseconds(50 * BatchLatency.Multiple), latency.DeadlockTimeout(Options));
    }

    [Fact]
    public void The_timeout_stays_well_short_of_the_declaration_timeout_that_would_abort_a_held_up_batch()
    {
        var latency = new BatchLatency(new ManualClock());
        Observe(latency, BatchLatency.Quorum, TimeSpan.FromMinutes(1));
        Assert.Equal(Options.DeclarationTimeout / 4, latency.DeadlockTimeout(Options));

        var shortTransactions = new SnapperOptions { DeadlockTimeout = Options.DeadlockTimeout, DeclarationTimeout = TimeSpan.FromSeconds(10), TransactionTimeout = TimeSpan.FromSeconds(2) };
        Assert.Equal(TimeSpan.FromMilliseconds(500), latency.DeadlockTimeout(shortTransactions));
    }

    [Fact]
    public void Latencies_no_batch_has_repeated_lately_no_longer_stretch_the_timeout()
    {
        // A workload of slow batches ended (or its batches stall behind ACTs and commit no more):
        // what they took does not hold every ACT that waits for a batch now.
        var clock = new ManualClock();
        var latency = new BatchLatency(clock);
        for (var i = 0; i < BatchLatency.Window; i++)
        {
            latency.Observe(TimeSpan.FromMilliseconds(600));
        }

        Assert.Equal(TimeSpan.FromMilliseconds(600 * BatchLatency.Multiple), latency.DeadlockTimeout(Options));
        clock.Advance(TimeSpan.FromSeconds(2)); // no batch committed since
        Assert.Equal(Options.DeadlockTimeout, latency.DeadlockTimeout(Options));

        // Batches commit again: only theirs count.
        Observe(latency, BatchLatency.Quorum, TimeSpan.FromMilliseconds(30));
        Assert.Equal(TimeSpan.FromMilliseconds(30 * BatchLatency.Multiple), latency.DeadlockTimeout(Options));
    }

    [Fact]
    public void The_few_batches_that_commit_while_cycles_stall_the_rest_do_not_stretch_the_timeout()
    {
        // Batches commit sparsely, and those that do were held by a cycle for the whole timeout:
        // were their latencies the typical one, each would raise the next timeout, up to the ceiling.
        var clock = new ManualClock();
        var latency = new BatchLatency(clock);
        for (var i = 0; i < 20; i++)
        {
            latency.Observe(latency.DeadlockTimeout(Options) + TimeSpan.FromMilliseconds(5));
            clock.Advance(TimeSpan.FromMilliseconds(300));
        }

        Assert.Equal(Options.DeadlockTimeout, latency.DeadlockTimeout(Options));
    }

    [Fact]
    public void A_configured_floor_above_the_ceiling_wins()
    {
        var latency = new BatchLatency(new ManualClock());
        Observe(latency, BatchLatency.Quorum, TimeSpan.FromMinutes(1));
        var patient = new SnapperOptions { DeadlockTimeout = TimeSpan.FromSeconds(5), DeclarationTimeout = TimeSpan.FromSeconds(10) };
        Assert.Equal(TimeSpan.FromSeconds(5), latency.DeadlockTimeout(patient));
    }

    private static void Observe(BatchLatency latency, int batches, TimeSpan each)
    {
        for (var i = 0; i < batches; i++)
        {
            latency.Observe(each);
        }
    }

    private sealed class ManualClock : TimeProvider
    {
        private long now = TimeSpan.TicksPerDay;

        public override long TimestampFrequency => TimeSpan.TicksPerSecond;

        public override long GetTimestamp() => now;

        public void Advance(TimeSpan by) => now += by.Ticks;
    }
}

using Snapper.Hybrid;

namespace Snapper.Tests.Hybrid;

/// <summary>The deadlock timeout follows the silo's batch latency, between the configured floor and the transaction timeout.</summary>
public sealed class BatchLatencyTests
{
    private static readonly TimeSpan Floor = TimeSpan.FromMilliseconds(20);
    private static readonly TimeSpan Ceiling = TimeSpan.FromSeconds(30);

    [Fact]
    public void Fast_batches_keep_the_configured_timeout()
    {
        var latency = new BatchLatency();
        Assert.Equal(Floor, latency.DeadlockTimeout(Floor, Ceiling));
        latency.Observe(TimeSpan.FromMilliseconds(2));
        Assert.Equal(Floor, latency.DeadlockTimeout(Floor, Ceiling));
    }

    [Fact]
    public void Slow_batches_stretch_the_timeout_to_several_of_them_and_it_shrinks_back_when_they_speed_up()
    {
        var latency = new BatchLatency();
        latency.Observe(TimeSpan.FromMilliseconds(100));
        Assert.Equal(TimeSpan.FromMilliseconds(100 * BatchLatency.Multiple), latency.DeadlockTimeout(Floor, Ceiling));

        for (var i = 0; i < 100; i++)
        {
            latency.Observe(TimeSpan.FromMilliseconds(1));
        }

        Assert.Equal(Floor, latency.DeadlockTimeout(Floor, Ceiling));
    }

    [Fact]
    public void The_timeout_never_exceeds_the_transaction_timeout()
    {
        var latency = new BatchLatency();
        latency.Observe(TimeSpan.FromMinutes(1));
        Assert.Equal(Ceiling, latency.DeadlockTimeout(Floor, Ceiling));
    }
}

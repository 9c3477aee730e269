using Snapper.Tests.Infrastructure;

namespace Snapper.Tests.Pact;

/// <summary>BatchCommit once per silo (<see cref="Snapper.Coordination.BatchCommits"/>): watermarks per coordinator, and a silo that missed an announcement asks.</summary>
public sealed class BatchCommitsTests
{
    private static readonly TimeSpan Bound = TimeSpan.FromSeconds(20);

    // Far above any bid the ring hands out in these silos: nothing but the test announces these.
    private const long Far = 1_000_000_000;

    [Fact]
    public async Task A_commit_wakes_the_batches_up_to_it_of_its_own_coordinator_only()
    {
        await using var silo = await TestSilo.StartAsync(s => s.Configure(o => o.CoordinatorCount = 2));
        var commits = silo.BatchCommits;
        var (own, other) = (silo.CoordinatorKey(0), silo.CoordinatorKey(1));

        var earlier = commits.WhenCommitted(own, Far + 5);
        var later = commits.WhenCommitted(own, Far + 20);
        var otherCoordinators = commits.WhenCommitted(other, Far + 5);
        Assert.False(earlier.IsCompleted || later.IsCompleted || otherCoordinators.IsCompleted, "a batch counted as committed before any announcement");

        commits.Advance(own, Far + 10);

        Assert.True(earlier.IsCompletedSuccessfully, "batch Far+5 waits although its coordinator committed Far+10");
        Assert.True(await earlier);
        Assert.False(later.IsCompleted, "batch Far+20 counted as committed when its coordinator committed Far+10");
        Assert.False(otherCoordinators.IsCompleted, "another coordinator's batch counted as committed");
        var below = commits.WhenCommitted(own, Far + 7);
        Assert.True(below.IsCompletedSuccessfully, "a batch at or below the announced one waits");
        Assert.True(await below);
    }

    [Fact]
    public async Task A_batch_whose_commit_was_never_announced_here_is_asked_of_its_coordinator()
    {
        await using var silo = await TestSilo.StartAsync();

        // The coordinator never formed this batch, so it answers it as resolved and committed (an
        // own bid it does not know): the silo must ask it, since no announcement will come.
        var waiting = silo.BatchCommits.WhenCommitted(silo.CoordinatorKey(0), Far);
        Assert.False(waiting.IsCompleted);

        Assert.True(await waiting.WaitAsync(Bound), "the missed commit was not found by asking");
    }
}

using Snapper.Logging;

namespace Snapper.Tests.Elr;

/// <summary>Recovery's rule for early-released commits: a CoordCommit counts only with its dependencies'.</summary>
public sealed class CommitDependencyRecoveryTests
{
    [Fact]
    public void A_CoordCommit_whose_dependency_never_reached_the_log_is_not_a_commit_and_neither_are_its_dependents()
    {
        var records = new Dictionary<long, CoordCommitRecord>
        {
            [2] = new(2) { DependsOn = [1] }, // 1 has no CoordCommit: aborted or lost in the crash
            [3] = new(3) { DependsOn = [2] },
            [4] = new(4),
            [5] = new(5) { DependsOn = [4] },
            [6] = new(6) { DependsOn = [4, 3] },
        };

        var committed = Snapper.Recovery.LogEvaluation.CommittedActsOf(records);

        Assert.Equal([4L, 5L], committed.Order());
    }

    [Fact]
    public void A_long_dependency_chain_is_resolved_without_recursion()
    {
        var records = Enumerable.Range(1, 200_000).ToDictionary(i => (long)i, i => new CoordCommitRecord(i) { DependsOn = i > 1 ? [i - 1] : [] });

        Assert.Equal(200_000, Snapper.Recovery.LogEvaluation.CommittedActsOf(records).Count);
        records.Remove(1);
        Assert.Empty(Snapper.Recovery.LogEvaluation.CommittedActsOf(records));
    }
}

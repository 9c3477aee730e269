using System.Collections.Concurrent;
using ListAppend;
using Snapper.History;
using Snapper.Tests.Hybrid;
using Snapper.Tests.Infrastructure;

namespace Snapper.Tests.Consistency;

/// <summary>
/// Serializability, checked Elle-style: concurrent transactions append their tids to the lists of
/// k actors and report what they saw; the checker then proves every committed append is where its
/// transaction saw it, no aborted one is visible, and the lists' orders form no cycle.
/// </summary>
public sealed class ListAppendConsistencyTests
{
    /// <summary>Transactions per run; SNAPPER_SOAK_TRANSACTIONS makes it a soak (default 400 keeps CI short).</summary>
    private static readonly int Transactions =
        int.TryParse(Environment.GetEnvironmentVariable("SNAPPER_SOAK_TRANSACTIONS"), out var n) && n > 0 ? n : 400;

    [Theory]
    [InlineData("act", 4, 3)]
    [InlineData("act", 32, 6)]
    [InlineData("act", 1000, 2)]
    [InlineData("pact", 4, 3)]
    [InlineData("pact", 32, 6)]
    [InlineData("pact", 1000, 1)]
    public async Task Concurrent_list_appends_are_serializable(string mode, int actors, int maxK)
    {
        await using var silo = await TestSilo.StartAsync(s => s.Configure(o => o.CoordinatorCount = 2));
        var ids = Enumerable.Range(0, actors).Select(i => ActorId.Create<IListActor>(i)).ToArray();
        var random = new Random(actors * 31 + maxK);
        var plans = Enumerable.Range(0, Transactions).Select(_ => ids.OrderBy(_ => random.Next()).Take(random.Next(1, maxK + 1)).ToArray()).ToArray();
        var history = new ConcurrentBag<HistoryEntry>();

        await Parallel.ForEachAsync(plans, new ParallelOptions { MaxDegreeOfParallelism = 32 }, async (plan, _) =>
            history.Add(await HybridConsistencyTests.Run(silo.Client, pact: mode == "pact", plan)));

        var dump = await HybridConsistencyTests.ReadAll(silo.Client, ids);
        var result = ListAppendChecker.Check([.. history], dump);
        Assert.True(result.Ok, CheckReport.Render(result));
        Assert.True(history.Count(h => h.Status == TransactionStatus.Committed) > 0);
        if (mode == "pact")
        {
            Assert.DoesNotContain(history, h => h.Status == TransactionStatus.Aborted); // no PACT throws here
        }
    }

    [Fact]
    public void The_checker_catches_a_history_the_runtime_could_not_have_produced()
    {
        // Guards the test above against a checker that passes everything: two transactions that
        // each saw the other's append first on a different list form a cycle.
        HistoryEntry[] history =
        [
            new(1, "act", TransactionStatus.Committed, null, ["a", "b"], [new("a", 0, null), new("b", 1, 2)]),
            new(2, "act", TransactionStatus.Committed, null, ["a", "b"], [new("a", 1, 1), new("b", 0, null)]),
        ];
        var dump = new Dictionary<string, IReadOnlyList<long>> { ["a"] = [1, 2], ["b"] = [2, 1] };

        var result = ListAppendChecker.Check(history, dump);

        Assert.False(result.Ok);
        Assert.NotEmpty(result.Of(ViolationKind.Cycle));
    }
}

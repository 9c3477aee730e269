using Snapper.History;

namespace Snapper.History.Tests;

public sealed class RandomizedHistoryTests(ITestOutputHelper output)
{
    public static TheoryData<int> Seeds() => [.. Enumerable.Range(1, 40)];

    [Theory]
    [MemberData(nameof(Seeds))]
    public void SerialExecution_AlwaysPasses(int seed)
    {
        var run = SerialExecution.Generate(seed);

        var result = ListAppendChecker.Check(run.History, run.Dump());

        Assert.True(result.Ok, $"seed {seed}: {CheckReport.Render(result)}");
        Assert.Equal(20, result.ListCount);
        Assert.True(result.CommittedCount > 0 && result.AbortedCount > 0 && result.UnknownCount > 0, result.ToString());
    }

    [Fact]
    public void SerialExecutions_ResolveUnknownOutcomesBothWays()
    {
        var visible = 0;
        var absent = 0;
        foreach (var seed in Enumerable.Range(1, 10))
        {
            var run = SerialExecution.Generate(seed);
            var result = ListAppendChecker.Check(run.History, run.Dump());
            Assert.Equal(result.UnknownCount, result.UnknownVisibleCount + result.UnknownAbsentCount);
            visible += result.UnknownVisibleCount;
            absent += result.UnknownAbsentCount;
        }

        Assert.True(visible > 0 && absent > 0, $"visible {visible}, absent {absent}");
    }

    [Theory]
    [MemberData(nameof(Seeds))]
    public void SwappingAdjacentElements_IsDetected(int seed)
    {
        var run = SerialExecution.Generate(seed);
        var committed = run.History.Where(e => e.Status == TransactionStatus.Committed).Select(e => e.Tid).ToHashSet();
        var random = new Random(seed * 7919);

        // Swap a random adjacent pair in a random list; at least one of the two is committed, so its
        // observation pins where it belongs.
        var candidates = run.Lists
            .SelectMany(kv => Enumerable.Range(0, Math.Max(0, kv.Value.Count - 1)).Select(i => (Actor: kv.Key, Index: i)))
            .Where(c => committed.Contains(run.Lists[c.Actor][c.Index]) || committed.Contains(run.Lists[c.Actor][c.Index + 1]))
            .ToList();
        var (actor, index) = candidates[random.Next(candidates.Count)];
        var list = run.Lists[actor];
        (list[index], list[index + 1]) = (list[index + 1], list[index]);

        var result = ListAppendChecker.Check(run.History, run.Dump());

        Assert.False(result.Ok, $"seed {seed}: swapping {list[index + 1]} and {list[index]} at {actor}[{index}] went unnoticed");
        Assert.True(result.CountOf(ViolationKind.Cycle) + result.CountOf(ViolationKind.WrongPosition) > 0, CheckReport.Render(result));
        Assert.Contains(result.Violations, v => v.Actors.Contains(actor));
    }

    [Fact]
    public void SwappingTwoTransactionsThatShareTwoLists_ProducesACycle()
    {
        // 10 and 20 both append to a and b, 10 first. Swapping them on a alone contradicts b's order.
        HistoryEntry[] history = [H.Committed(10, ("a", 0, null), ("b", 0, null)), H.Committed(20, ("a", 1, 10), ("b", 1, 10))];
        var dump = H.Dump(("a", [20, 10]), ("b", [10, 20]));

        var result = ListAppendChecker.Check(history, dump);
        output.WriteLine(CheckReport.Render(result));

        var cycle = Assert.Single(result.Of(ViolationKind.Cycle));
        Assert.StartsWith("10 -[b]-> 20 -[a]-> 10", cycle.Message, StringComparison.Ordinal);
        Assert.Equal(2, result.CountOf(ViolationKind.WrongPosition));
    }

    [Fact]
    public void SwappingUnknownOutcomeTransactions_IsCaughtByTheCycleAlone()
    {
        // Unknown-outcome observations are not trusted, so only the precedence graph can catch this.
        HistoryEntry[] history = [H.Unknown(10, "a", "b"), H.Unknown(20, "a", "b")];
        var dump = H.Dump(("a", [20, 10]), ("b", [10, 20]));

        var result = ListAppendChecker.Check(history, dump);

        Assert.Single(H.Only(result, ViolationKind.Cycle));
    }
}

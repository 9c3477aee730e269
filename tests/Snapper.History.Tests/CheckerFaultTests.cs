using Snapper.History;

namespace Snapper.History.Tests;

/// <summary>Hand-made faulty histories: each must be flagged with the right kind and a message naming what is wrong.</summary>
public sealed class CheckerFaultTests(ITestOutputHelper output)
{
    [Fact]
    public void CycleAcrossTwoLists_IsFlaggedAndPrinted()
    {
        // Both committed transactions observed states consistent with the lists, but a3 orders 5 before 9
        // and a9 orders 9 before 5: no serial order explains both.
        HistoryEntry[] history =
        [
            H.Committed(5, ("a3", 1, 1), ("a9", 1, 9)),
            H.Committed(9, ("a3", 2, 5), ("a9", 0, null)),
            H.Committed(1, ("a3", 0, null)),
        ];
        var dump = H.Dump(("a3", [1, 5, 9]), ("a9", [9, 5]));

        var result = H.Check(history, dump, output);
        var cycle = Assert.Single(H.Only(result, ViolationKind.Cycle));

        Assert.Contains("5 -[a3]-> 9 -[a9]-> 5", cycle.Message, StringComparison.Ordinal);
        Assert.Equal([5L, 9L], cycle.Tids);
        Assert.Equal(["a3", "a9"], cycle.Actors);
        var report = CheckReport.Render(result);
        Assert.Contains("FAILED", report, StringComparison.Ordinal);
        Assert.Contains("Cycle: 1", report, StringComparison.Ordinal);
        Assert.Contains("[Cycle] 5 -[a3]-> 9 -[a9]-> 5", report, StringComparison.Ordinal);
    }

    [Fact]
    public void CycleThroughThreeLists_ReportsOneConcreteCyclePerComponent()
    {
        // 1 -> 2 on x, 2 -> 3 on y, 3 -> 1 on z; plus a separate two-tid cycle 7 <-> 8.
        HistoryEntry[] history = [H.Unknown(1, "x", "z"), H.Unknown(2, "x", "y"), H.Unknown(3, "y", "z"), H.Unknown(7, "p", "q"), H.Unknown(8, "p", "q")];
        var dump = H.Dump(("x", [1, 2]), ("y", [2, 3]), ("z", [3, 1]), ("p", [7, 8]), ("q", [8, 7]));

        var result = H.Check(history, dump, output);
        var cycles = H.Only(result, ViolationKind.Cycle);

        Assert.Equal(2, cycles.Count);
        Assert.Contains(cycles, c => c.Message.StartsWith("1 -[x]-> 2 -[y]-> 3 -[z]-> 1 ", StringComparison.Ordinal));
        Assert.Contains(cycles, c => c.Message.StartsWith("7 -[p]-> 8 -[q]-> 7 ", StringComparison.Ordinal));
    }

    [Fact]
    public void LostAppend_IsFlagged()
    {
        HistoryEntry[] history = [H.Committed(1, ("a", 0, null), ("b", 0, null)), H.Committed(2, ("b", 0, null))];
        var dump = H.Dump(("a", [1]), ("b", [2]));

        var lost = Assert.Single(H.Only(H.Check(history, dump, output), ViolationKind.LostAppend));

        Assert.Equal([1L], lost.Tids);
        Assert.Equal(["b"], lost.Actors);
        Assert.Contains("committed tid 1 is missing from list b", lost.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void LostAppend_ToAnActorWithoutList_IsFlagged()
    {
        HistoryEntry[] history = [H.Committed(1, ("a", 0, null), ("ghost", 0, null))];
        var dump = H.Dump(("a", [1]));

        var lost = Assert.Single(H.Only(H.Check(history, dump, output), ViolationKind.LostAppend));

        Assert.Contains("ghost", lost.Message, StringComparison.Ordinal);
        Assert.Contains("no list", lost.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void DuplicatedAppend_IsFlagged()
    {
        HistoryEntry[] history = [H.Committed(1, ("a", 0, null)), H.Committed(2, ("a", 1, 1))];
        var dump = H.Dump(("a", [1, 2, 1]));

        var duplicate = Assert.Single(H.Only(H.Check(history, dump, output), ViolationKind.DuplicateAppend));

        Assert.Equal([1L], duplicate.Tids);
        Assert.Contains("tid 1 appears 2 times in list a, at positions 0, 2", duplicate.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void AbortedAppend_IsFlagged()
    {
        HistoryEntry[] history = [H.Committed(1, ("a", 0, null)), H.Aborted(3, "a", "b")];
        var dump = H.Dump(("a", [1, 3]), ("b", []));

        var aborted = Assert.Single(H.Only(H.Check(history, dump, output), ViolationKind.AbortedAppendVisible));

        Assert.Equal([3L], aborted.Tids);
        Assert.Contains("aborted tid 3", aborted.Message, StringComparison.Ordinal);
        Assert.Contains("list a at position 1", aborted.Message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData(1, 1L)] // observed the same state as tid 2 (a lost update), but landed after it
    [InlineData(2, 1L)] // right index, but it observed tid 1 there, not tid 2
    [InlineData(3, 2L)] // an index the list never had at that time
    public void WrongPosition_IsFlagged(int prefixLen, long prevTid)
    {
        HistoryEntry[] history = [H.Committed(1, ("a", 0, null)), H.Committed(2, ("a", 1, 1)), H.Committed(3, ("a", prefixLen, prevTid))];
        var dump = H.Dump(("a", [1, 2, 3]));

        var wrong = Assert.Single(H.Only(H.Check(history, dump, output), ViolationKind.WrongPosition));

        Assert.Equal(3L, wrong.Tids[0]);
        Assert.Equal(["a"], wrong.Actors);
        Assert.Contains($"committed tid 3 observed prefixLen {prefixLen} and prevTid {prevTid} on a", wrong.Message, StringComparison.Ordinal);
        Assert.Contains("position 2 after tid 2", wrong.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void WrongPosition_AtTheHeadAfterObservingATid_IsFlagged()
    {
        HistoryEntry[] history = [H.Committed(1, ("a", 0, null)), H.Committed(2, ("a", 1, 1))];
        var dump = H.Dump(("a", [2, 1]));

        var result = H.Check(history, dump, output);

        Assert.Equal(2, result.CountOf(ViolationKind.WrongPosition));
        Assert.Contains(result.Violations, v => v.Message.Contains("holds it at position 0 at the head", StringComparison.Ordinal));
    }

    [Fact]
    public void PartialUnknown_IsFlagged()
    {
        HistoryEntry[] history = [H.Unknown(4, "a", "b", "c")];
        var dump = H.Dump(("a", [4]), ("b", []), ("c", [4]));

        var partial = Assert.Single(H.Only(H.Check(history, dump, output), ViolationKind.PartialUnknown));

        Assert.Equal([4L], partial.Tids);
        Assert.Contains("unknown-outcome tid 4 is in [a@0, c@0] but not in [b]", partial.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void UnknownTid_IsFlagged()
    {
        HistoryEntry[] history = [H.Committed(1, ("a", 0, null))];
        var dump = H.Dump(("a", [1, 99]));

        var unknown = Assert.Single(H.Only(H.Check(history, dump, output), ViolationKind.UnknownTid));

        Assert.Equal([99L], unknown.Tids);
        Assert.Contains("list a holds tid 99 at position 1", unknown.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void AppendOutsideDeclaredActors_IsFlagged()
    {
        HistoryEntry[] history = [H.Committed(1, ("a", 0, null)), H.Unknown(2, "a")];
        var dump = H.Dump(("a", [1, 2]), ("b", [1, 2]));

        var result = H.Check(history, dump, output);
        var outside = H.Only(result, ViolationKind.AppendOutsideDeclaredActors);

        Assert.Equal(2, outside.Count);
        Assert.Contains(outside, v => v.Message.Contains("committed tid 1 appears in list b at position 0", StringComparison.Ordinal));
        Assert.Contains(outside, v => v.Message.Contains("unknown-outcome tid 2 appears in list b at position 1", StringComparison.Ordinal));
    }

    [Fact]
    public void DuplicateHistoryEntry_IsMalformedHistory()
    {
        HistoryEntry[] history = [H.Committed(1, ("a", 0, null)), H.Aborted(1, "a")];
        var dump = H.Dump(("a", [1]));

        var malformed = Assert.Single(H.Only(H.Check(history, dump, output), ViolationKind.MalformedHistory));

        Assert.Contains("tid 1 has more than one history entry", malformed.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void CommittedWithoutObservation_IsMalformedHistory()
    {
        HistoryEntry[] history = [new(1, "act", TransactionStatus.Committed, null, ["a", "b"], [new AppendObservation("a", 0, null)])];
        var dump = H.Dump(("a", [1]), ("b", [1]));

        var malformed = Assert.Single(H.Only(H.Check(history, dump, output), ViolationKind.MalformedHistory));

        Assert.Contains("declares actor b but has no append observation", malformed.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void ViolationsBeyondTheCap_AreCountedButNotReported()
    {
        HistoryEntry[] history = [H.Committed(1, ("a", 0, null))];
        var dump = H.Dump(("a", [1, .. Enumerable.Range(1000, 150).Select(i => (long)i)]));

        var result = H.Check(history, dump);

        Assert.Equal(150, result.CountOf(ViolationKind.UnknownTid));
        Assert.Equal(ListAppendChecker.DefaultMaxReportedPerKind, result.Violations.Count);
        var report = CheckReport.Render(result);
        Assert.Contains("UnknownTid: 150", report, StringComparison.Ordinal);
        Assert.Contains("... and 50 more UnknownTid violations not shown", report, StringComparison.Ordinal);
    }
}

using Snapper.History;

namespace Snapper.History.Tests;

public sealed class CorrectHistoryTests(ITestOutputHelper output)
{
    [Fact]
    public void HandMadeCorrectHistory_Passes()
    {
        // Serial order: 1, 2, 4, 6. Aborted 3 and unknown 5 never applied; unknown 4 applied on both actors.
        HistoryEntry[] history =
        [
            H.Committed(6, ("c", 0, null)),
            H.Committed(1, ("a", 0, null), ("b", 0, null)),
            H.Aborted(3, "a"),
            H.Committed(2, ("b", 1, 1)),
            H.Unknown(4, "a", "b"),
            H.Unknown(5, "a", "c"),
            new(7, "pact", TransactionStatus.Aborted, null, ["b", "c"], [new AppendObservation("b", 99, 12345)]),
        ];
        var dump = H.Dump(("a", [1, 4]), ("b", [1, 2, 4]), ("c", [6]));

        var result = H.Check(history, dump, output);

        Assert.True(result.Ok, CheckReport.Render(result));
        Assert.Empty(result.Violations);
        Assert.Equal((3, 2, 2), (result.CommittedCount, result.AbortedCount, result.UnknownCount));
        Assert.Equal((1, 1), (result.UnknownVisibleCount, result.UnknownAbsentCount));
        Assert.Equal((3, 6L), (result.ListCount, result.ElementCount));
        Assert.StartsWith(
            "list-append check OK: 7 transactions (3 committed, 2 aborted, 2 unknown [1 visible, 1 absent]), 3 lists, 6 elements, 0 violations",
            CheckReport.Render(result),
            StringComparison.Ordinal);
    }

    [Fact]
    public void EmptyHistoryAndDump_Pass()
    {
        var result = ListAppendChecker.Check([], H.Dump());

        Assert.True(result.Ok);
    }
}

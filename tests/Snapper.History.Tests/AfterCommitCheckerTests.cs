using Snapper.History;

namespace Snapper.History.Tests;

/// <summary>The after-commit journal check: each committed transaction's actions taken, none of an aborted one's, each id once.</summary>
public sealed class AfterCommitCheckerTests
{
    private static readonly HistoryEntry[] History =
    [
        H.Committed(10, ("1", 0, null), ("2", 0, null)),
        H.Aborted(11, "1", "2"),
        H.Unknown(12, "3"),
    ];

    private static AfterCommitChecker.Result Check(params string[] lines) => AfterCommitChecker.Check(History, AfterCommitChecker.Read(lines));

    [Fact]
    public void Every_committed_action_taken_repeats_dropped_and_an_in_doubt_ones_either_way_pass()
    {
        var result = Check("taken\t10/L/1/0\t10\t1", "taken\t10/L/2/0\t10\t2", "repeat\t10/L/2/0\t10\t2", "taken\t12/L/3/0\t12\t3");

        Assert.True(result.Ok);
        Assert.Equal(2, result.Expected);
        Assert.Equal(1, result.Journal.Repeats);
        Assert.StartsWith("after-commit check OK: 2 action(s) of committed transactions, 3 taken, 1 repeat", AfterCommitChecker.Render(result), StringComparison.Ordinal);
    }

    [Fact]
    public void A_committed_action_never_taken_fails_naming_it()
    {
        var result = Check("taken\t10/L/1/0\t10\t1");

        Assert.False(result.Ok);
        Assert.Equal(["10/2"], result.Missing);
        Assert.Contains("1 never taken (10/2)", AfterCommitChecker.Render(result), StringComparison.Ordinal);
    }

    [Fact]
    public void An_action_of_an_aborted_transaction_fails_naming_it()
    {
        var result = Check("taken\t10/L/1/0\t10\t1", "taken\t10/L/2/0\t10\t2", "taken\t11/L/1/0\t11\t1");

        Assert.False(result.Ok);
        Assert.Equal(["11/1"], result.OfAborted);
    }

    [Fact]
    public void An_id_taken_twice_fails_since_the_handler_should_have_dropped_the_repeat()
    {
        var result = Check("taken\t10/L/1/0\t10\t1", "taken\t10/L/2/0\t10\t2", "taken\t10/L/2/0\t10\t2");

        Assert.False(result.Ok);
        Assert.Contains("1 id(s) taken twice (10/L/2/0)", AfterCommitChecker.Render(result), StringComparison.Ordinal);
    }

    [Fact]
    public void A_malformed_line_is_refused_naming_its_number()
    {
        var refused = Assert.Throws<InvalidDataException>(() => AfterCommitChecker.Read(["taken\t10/L/1/0\t10\t1", "garbage"]));

        Assert.StartsWith("line 2 ", refused.Message, StringComparison.Ordinal);
    }
}

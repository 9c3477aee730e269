using Snapper.History;

namespace Snapper.History.Tests;

/// <summary>Terse builders for hand-made histories and dumps.</summary>
internal static class H
{
    public static HistoryEntry Committed(long tid, params (string Actor, int PrefixLen, long? PrevTid)[] appends) =>
        new(tid, "act", TransactionStatus.Committed, null,
            [.. appends.Select(a => a.Actor)],
            [.. appends.Select(a => new AppendObservation(a.Actor, a.PrefixLen, a.PrevTid))]);

    public static HistoryEntry Aborted(long tid, params string[] actors) =>
        new(tid, "pact", TransactionStatus.Aborted, "deadlock", actors, []);

    public static HistoryEntry Unknown(long tid, params string[] actors) =>
        new(tid, "act-elr", TransactionStatus.Unknown, null, actors, []);

    public static IReadOnlyDictionary<string, IReadOnlyList<long>> Dump(params (string Actor, long[] Tids)[] lists) =>
        lists.ToDictionary(l => l.Actor, l => (IReadOnlyList<long>)l.Tids, StringComparer.Ordinal);

    public static CheckResult Check(IReadOnlyList<HistoryEntry> history, IReadOnlyDictionary<string, IReadOnlyList<long>> dump, ITestOutputHelper? output = null)
    {
        var result = ListAppendChecker.Check(history, dump);
        output?.WriteLine(CheckReport.Render(result));
        return result;
    }

    /// <summary>Asserts that the only violations are of <paramref name="kind"/> and returns them.</summary>
    public static IReadOnlyList<Violation> Only(CheckResult result, ViolationKind kind)
    {
        Assert.False(result.Ok, "expected a violation");
        Assert.All(result.Violations, v => Assert.Equal(kind, v.Kind));
        Assert.Equal(result.Violations.Count, result.TotalViolations);
        return [.. result.Violations];
    }
}

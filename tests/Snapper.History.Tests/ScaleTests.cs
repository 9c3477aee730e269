using System.Diagnostics;
using Snapper.History;

namespace Snapper.History.Tests;

public sealed class ScaleTests(ITestOutputHelper output)
{
    private const int ChainLength = 200_000;

    [Fact]
    public void SingleChainOf200000Tids_IsCheckedWithoutStackOverflow()
    {
        // One list holding 200,000 committed tids, each observing its predecessor: a 200,000-deep DFS path.
        var history = new HistoryEntry[ChainLength];
        var list = new long[ChainLength];
        for (var i = 0; i < ChainLength; i++)
        {
            history[i] = H.Committed(i + 1, ("a", i, i == 0 ? null : i));
            list[i] = i + 1;
        }

        var result = ListAppendChecker.Check(history, H.Dump(("a", list)));

        Assert.True(result.Ok, CheckReport.Render(result));
        Assert.Equal(ChainLength, result.ElementCount);
        Assert.Equal(ChainLength - 1, result.EdgeCount);
    }

    [Fact]
    public void CycleOf200000Tids_IsFoundAndItsReportIsBounded()
    {
        // List a orders 1..200,000; list b orders 200,000 before 1, closing a 200,000-tid cycle.
        var history = new HistoryEntry[ChainLength];
        var list = new long[ChainLength];
        for (var i = 0; i < ChainLength; i++)
        {
            history[i] = H.Unknown(i + 1, i is 0 or ChainLength - 1 ? ["a", "b"] : ["a"]);
            list[i] = i + 1;
        }

        var result = ListAppendChecker.Check(history, H.Dump(("a", list), ("b", [ChainLength, 1])));
        output.WriteLine(CheckReport.Render(result));

        var cycle = Assert.Single(H.Only(result, ViolationKind.Cycle));
        Assert.Equal(ChainLength, cycle.Tids.Count);
        Assert.StartsWith("1 -[a]-> 2 -[a]-> 3", cycle.Message, StringComparison.Ordinal);
        Assert.Contains($"{ChainLength} -[b]-> 1 (a cycle of {ChainLength} tids", cycle.Message, StringComparison.Ordinal);
        Assert.True(cycle.Message.Length < 2_000, $"message of {cycle.Message.Length} chars");
    }

    [Fact]
    public void MillionAppendHistory_IsCheckedAndTimed()
    {
        // 250,000 committed transactions x 4 actors = 1,000,000 appends over 1,000 lists, applied serially.
        var run = SerialExecutionAtScale(transactions: 250_000, lists: 1_000, actorsPerTxn: 4, seed: 42);

        var clock = Stopwatch.StartNew();
        var result = ListAppendChecker.Check(run.History, run.Dump);
        clock.Stop();

        Assert.True(result.Ok, CheckReport.Summary(result));
        Assert.Equal(1_000_000, result.ElementCount);
        output.WriteLine($"{CheckReport.Summary(result)}");
        output.WriteLine($"checked 1,000,000 appends in {clock.Elapsed.TotalMilliseconds:F0} ms");
    }

    private static (HistoryEntry[] History, IReadOnlyDictionary<string, IReadOnlyList<long>> Dump) SerialExecutionAtScale(
        int transactions, int lists, int actorsPerTxn, int seed)
    {
        var random = new Random(seed);
        var names = Enumerable.Range(0, lists).Select(i => $"a{i}").ToArray();
        var contents = names.Select(_ => new List<long>()).ToArray();
        var history = new HistoryEntry[transactions];
        var picked = new int[actorsPerTxn];
        for (var t = 0; t < transactions; t++)
        {
            long tid = t + 1;
            for (var k = 0; k < actorsPerTxn; k++)
            {
                int candidate;
                do
                {
                    candidate = random.Next(lists);
                }
                while (Array.IndexOf(picked, candidate, 0, k) >= 0);

                picked[k] = candidate;
            }

            var actors = new string[actorsPerTxn];
            var appends = new AppendObservation[actorsPerTxn];
            for (var k = 0; k < actorsPerTxn; k++)
            {
                var list = contents[picked[k]];
                actors[k] = names[picked[k]];
                appends[k] = new AppendObservation(actors[k], list.Count, list.Count == 0 ? null : list[^1]);
                list.Add(tid);
            }

            history[t] = new HistoryEntry(tid, "act", TransactionStatus.Committed, null, actors, appends);
        }

        random.Shuffle(history);
        var dump = Enumerable.Range(0, lists).ToDictionary(i => names[i], i => (IReadOnlyList<long>)contents[i].ToArray());
        return (history, dump);
    }
}

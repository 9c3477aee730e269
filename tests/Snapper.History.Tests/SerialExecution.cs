using Snapper.History;

namespace Snapper.History.Tests;

/// <summary>
/// Generates the history and dump of a serial execution of the list-append workload: random transactions
/// over <c>listCount</c> lists, run one at a time in a random serial order, some aborted (never applied) and
/// some of unknown outcome (applied or not at random). The history lists transactions in an order unrelated
/// to the serial order and uses random, non-monotonic tids.
/// </summary>
internal sealed class SerialExecution
{
    private SerialExecution(List<HistoryEntry> history, Dictionary<string, List<long>> lists)
    {
        History = history;
        Lists = lists;
    }

    public List<HistoryEntry> History { get; }

    public Dictionary<string, List<long>> Lists { get; }

    public IReadOnlyDictionary<string, IReadOnlyList<long>> Dump() =>
        Lists.ToDictionary(kv => kv.Key, kv => (IReadOnlyList<long>)kv.Value.ToArray(), StringComparer.Ordinal);

    public static SerialExecution Generate(int seed, int listCount = 20, int transactions = 400, int maxActorsPerTxn = 4)
    {
        var random = new Random(seed);
        var actors = Enumerable.Range(0, listCount).Select(i => $"a{i}").ToArray();
        var lists = actors.ToDictionary(a => a, _ => new List<long>(), StringComparer.Ordinal);
        var tids = new HashSet<long>();
        var history = new List<HistoryEntry>();
        string[] modes = ["act", "pact", "act-elr"];

        for (var t = 0; t < transactions; t++)
        {
            long tid;
            do
            {
                tid = random.NextInt64(1, 1_000_000_000);
            }
            while (!tids.Add(tid));

            var k = random.Next(1, Math.Min(maxActorsPerTxn, listCount) + 1);
            var mine = actors.OrderBy(_ => random.Next()).Take(k).ToArray();
            var roll = random.NextDouble();
            var status = roll < 0.7 ? TransactionStatus.Committed : roll < 0.85 ? TransactionStatus.Aborted : TransactionStatus.Unknown;
            var applied = status == TransactionStatus.Committed || (status == TransactionStatus.Unknown && random.Next(2) == 0);

            var appends = new List<AppendObservation>();
            foreach (var actor in mine)
            {
                var list = lists[actor];
                if (applied)
                {
                    appends.Add(new AppendObservation(actor, list.Count, list.Count == 0 ? null : list[^1]));
                    list.Add(tid);
                }
                else if (random.Next(3) == 0)
                {
                    // An aborted or never-applied transaction may report untrustworthy partial observations.
                    appends.Add(new AppendObservation(actor, random.Next(0, 50), random.Next(2) == 0 ? null : random.NextInt64(1, 1_000_000_000)));
                }
            }

            if (status != TransactionStatus.Committed)
            {
                // Only what was observed before the end: keep a random prefix.
                appends = [.. appends.Take(random.Next(appends.Count + 1))];
            }

            var reason = status == TransactionStatus.Aborted ? (random.Next(2) == 0 ? "deadlock" : "timeout") : null;
            history.Add(new HistoryEntry(tid, modes[random.Next(modes.Length)], status, reason, mine, appends));
        }

        // Transactions finish (and are logged) in an order unrelated to the serial order.
        var shuffled = history.OrderBy(_ => random.Next()).ToList();
        return new SerialExecution(shuffled, lists);
    }
}

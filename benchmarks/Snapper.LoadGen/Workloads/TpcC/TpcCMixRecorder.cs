using System.Collections.Concurrent;
using System.Diagnostics;
using TpcC.Transactions;

namespace Snapper.LoadGen.Workloads.TpcC;

/// <summary>
/// Records when each issued TPC-C transaction finished, by mode, type and outcome, so that a span
/// (the measurement window) can be counted afterwards. The load driver only sees "a transaction";
/// this is how NewOrder's share of it is reported.
/// </summary>
/// <remarks>Lock-free appends from every load loop; counting happens once, after the run.</remarks>
public sealed class TpcCMixRecorder
{
    private static readonly int Types = Enum.GetValues<TpcCTransactionType>().Length;

    private readonly ConcurrentDictionary<string, ConcurrentQueue<long>[]> finishes = new(StringComparer.Ordinal);

    /// <summary>Records a transaction of <paramref name="type"/> in <paramref name="mode"/> finishing now.</summary>
    public void Record(string mode, TpcCTransactionType type, bool committed)
    {
        var now = Stopwatch.GetTimestamp();
        var queues = finishes.GetOrAdd(mode, static _ => [.. Enumerable.Range(0, 2 * Types).Select(_ => new ConcurrentQueue<long>())]);
        queues[Slot(type, committed)].Enqueue(now);
    }

    /// <summary>
    /// Counts <paramref name="mode"/>'s transactions that finished in [<paramref name="from"/>,
    /// <paramref name="to"/>) (<see cref="Stopwatch"/> timestamps).
    /// </summary>
    public TpcCMixSummary Summarize(string mode, long from, long to)
    {
        var seconds = Math.Max(0, to - from) / (double)Stopwatch.Frequency;
        var queues = finishes.GetValueOrDefault(mode);
        var types = new List<TpcCTypeCounts>(Types);
        foreach (var type in Enum.GetValues<TpcCTransactionType>())
        {
            var committed = Count(queues?[Slot(type, true)], from, to);
            var aborted = Count(queues?[Slot(type, false)], from, to);
            types.Add(new TpcCTypeCounts(type, committed, aborted, seconds > 0 ? committed / seconds : 0));
        }

        return new TpcCMixSummary(mode, seconds, types);
    }

    /// <summary>Counts everything <paramref name="mode"/> finished, warm-up and drain included.</summary>
    public TpcCMixSummary SummarizeAll(string mode)
    {
        var queues = finishes.GetValueOrDefault(mode);
        if (queues is null || queues.All(q => q.IsEmpty))
        {
            return Summarize(mode, 0, 0);
        }

        var all = queues.SelectMany(q => q).ToArray();
        return Summarize(mode, all.Min(), all.Max() + 1);
    }

    private static int Slot(TpcCTransactionType type, bool committed) => (2 * (int)type) + (committed ? 0 : 1);

    private static long Count(ConcurrentQueue<long>? queue, long from, long to) => queue?.Count(t => t >= from && t < to) ?? 0;
}

using BenchmarkDotNet.Attributes;
using Snapper.Benchmarks.Logging;
using Snapper.Protocol;
using Snapper.Scheduling;

namespace Snapper.Benchmarks.Pact;

/// <summary>
/// An actor's local schedule: a sub-batch arrives, each of its PACTs makes its one declared call
/// in turn (enter + exit), and the batch completes.
/// </summary>
[MemoryDiagnoser]
public class LocalScheduleBenchmarks
{
    private static readonly ActorId Me = ActorId.Create<IBenchActor>("me");
    private LocalSchedule schedule = new(Me);
    private SubBatch[] batches = [];
    private TxnContext[][] contexts = [];
    private int next;

    [Params(1, 16)]
    public int PactsPerBatch { get; set; }

    [GlobalSetup]
    public void Setup()
    {
        // Enough distinct batches, chained by prevBid, for every invocation of a run.
        const int count = 1 << 16;
        batches = new SubBatch[count];
        contexts = new TxnContext[count][];
        var declared = AccessSet.Of(Me);
        long prev = 0;
        for (var b = 0; b < count; b++)
        {
            var bid = 1 + ((long)b * PactsPerBatch);
            batches[b] = new SubBatch(bid, prev, "silo/0", [.. Enumerable.Range(0, PactsPerBatch).Select(i => (bid + i, 1))]);
            contexts[b] = [.. Enumerable.Range(0, PactsPerBatch).Select(i => new TxnContext(bid + i, TxnMode.Pact, Me, DateTimeOffset.MaxValue, bid, declared))];
            prev = bid;
        }
    }

    [Benchmark(Description = "sub-batch: add, every PACT enters and exits, complete")]
    public void RunOneBatch()
    {
        var b = next++ & (batches.Length - 1);
        if (b == 0)
        {
            // Wrapped around: the bids start again, so a new schedule (allocated outside the measured path once per 65,536 runs).
            schedule = new LocalSchedule(Me);
        }

        schedule.Add(batches[b]);
        foreach (var ctx in contexts[b])
        {
            _ = schedule.Enter(ctx);
            schedule.Exit(ctx);
        }
    }
}

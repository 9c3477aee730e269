using BenchmarkDotNet.Attributes;
using Snapper.Benchmarks.Logging;
using Snapper.Pact;

namespace Snapper.Benchmarks.Pact;

/// <summary>
/// An actor's local schedule: a sub-batch arrives, each of its PACTs makes its one declared call
/// in turn (enter + exit), and the batch completes.
/// </summary>
[MemoryDiagnoser]
public class LocalScheduleBenchmarks
{
    private static readonly ActorId Me = ActorId.Create<IBenchActor>("me");
    private readonly LocalSchedule schedule = new(Me);
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
            batches[b] = new SubBatch(bid, prev, 0, [.. Enumerable.Range(0, PactsPerBatch).Select(i => (bid + i, 1))]);
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
            // Wrapped around: start a new chain, as after an abort cascade.
            schedule.AbortThrough(0, lastCommittedBid: 0);
        }

        schedule.Add(b == 0 ? batches[0] with { PrevBid = 0 } : batches[b]);
        foreach (var ctx in contexts[b])
        {
            _ = schedule.Enter(ctx);
            schedule.Exit(ctx);
        }
    }
}

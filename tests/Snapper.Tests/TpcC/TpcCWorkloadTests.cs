using System.Diagnostics;
using Snapper.LoadGen.Workloads.TpcC;
using Snapper.Tests.Infrastructure;
using TpcC;
using TpcC.Transactions;
using Snapper.LoadGen.Workloads;

namespace Snapper.Tests.TpcC;

/// <summary>The load generator's TPC-C workload: load, issue the mix, count by type, verify.</summary>
public sealed class TpcCWorkloadTests
{
    [Theory]
    [InlineData("pact")]
    [InlineData("act")]
    public async Task The_workload_loads_issues_the_standard_mix_and_verifies(string mode)
    {
        await using var silo = await TestSilo.StartAsync();
        var workload = new TpcCWorkload(silo.Client, TpcCSilo.Partitioned);
        var loaded = await workload.LoadAsync(mode);
        Assert.Equal(workload.Database(mode).AllActors().Count(), loaded.Actors);
        Assert.Equal(mode, workload.Database(mode).Name);

        var issued = await Issue(workload.For(mode, newOrderOnly: false), 300, parallelism: 4);

        var mix = workload.Mix.SummarizeAll(mode);
        Assert.Equal(issued.Committed, mix.Types.Sum(t => t.Committed));
        Assert.Equal(issued.Aborted, mix.Types.Sum(t => t.Aborted));
        var newOrders = mix.Types.Single(t => t.Type == TpcCTransactionType.NewOrder);
        Assert.InRange(newOrders.Committed + newOrders.Aborted, 100, 170);
        Assert.True(newOrders.Committed > 0);
        Assert.True(mix.NewOrdersPerSecond > 0);

        var check = await workload.VerifyAsync(mode);
        Assert.True(check.Ok, check.ToString());
    }

    [Fact]
    public async Task NewOrder_only_and_single_type_delegates_issue_only_that_type()
    {
        await using var silo = await TestSilo.StartAsync();
        var workload = new TpcCWorkload(silo.Client, TpcCSilo.Unpartitioned);
        await workload.LoadAsync("pact");

        await Issue(workload.For("pact", newOrderOnly: true), 40, parallelism: 4);
        await Issue(workload.For("pact", TpcCTransactionType.StockLevel), 5, parallelism: 1);

        var mix = workload.Mix.SummarizeAll("pact");
        foreach (var counts in mix.Types)
        {
            var expected = counts.Type switch
            {
                TpcCTransactionType.NewOrder => 40,
                TpcCTransactionType.StockLevel => 5,
                _ => 0,
            };
            Assert.Equal(expected, counts.Committed + counts.Aborted);
        }

        // The act database was never loaded or used.
        Assert.Equal(0, workload.Mix.SummarizeAll("act").Types.Sum(t => t.Committed + t.Aborted));
        Assert.True((await workload.VerifyAsync("pact")).Ok);
    }

    [Fact]
    public async Task Inputs_follow_the_drivers_keys_and_only_pact_act_and_hybrid_exist()
    {
        Assert.Equal(TpcCWorkload.RandomFor([4, 8, 15]).Next(), TpcCWorkload.RandomFor([4, 8, 15]).Next());
        Assert.NotEqual(TpcCWorkload.RandomFor([4, 8, 15]).Next(), TpcCWorkload.RandomFor([4, 8, 16]).Next());
        Assert.Equal(100, TpcCWorkload.MixPercentages(newOrderOnly: false).Sum(m => m.Percent));
        Assert.Equal(2, TpcCWorkload.DefaultConfig(2).Warehouses);

        await using var silo = await TestSilo.StartAsync();
        var workload = new TpcCWorkload(silo.Client, TpcCSilo.Partitioned);
        Assert.Throws<ArgumentOutOfRangeException>(() => workload.For("nt", newOrderOnly: false));
        Assert.Throws<ArgumentOutOfRangeException>(() => workload.For("act-elr", TpcCTransactionType.Payment));
        Assert.Throws<ArgumentOutOfRangeException>(() => TpcCWorkload.TxnModeOf("hybrid"));
        Assert.Equal(TxnMode.Pact, TpcCWorkload.StateModeOf("hybrid"));
        Assert.Equal(["pact", "act", "hybrid"], TpcCWorkload.Modes);
    }

    [Fact]
    public async Task Kinds_give_the_driver_one_kind_per_type_at_the_standard_percentages()
    {
        await using var silo = await TestSilo.StartAsync();
        var workload = new TpcCWorkload(silo.Client, TpcCSilo.Unpartitioned);
        await workload.LoadAsync("act");

        var mix = workload.Kinds("act", newOrderOnly: false);
        Assert.Equal(["neworder", "payment", "orderstatus", "delivery", "stocklevel"], mix.Kinds.Select(k => k.Name));
        Assert.Equal([45, 43, 4, 4, 4], mix.Kinds.Select(k => k.Percent));
        await Issue(mix.Kinds[2].Issue, 3, parallelism: 1);
        Assert.Equal(3, workload.Mix.SummarizeAll("act").Types.Single(t => t.Type == TpcCTransactionType.OrderStatus).Committed);

        var single = workload.Kinds("act", newOrderOnly: true);
        Assert.Equal("act", Assert.Single(single.Kinds).Name);
    }

    [Fact]
    public void The_mix_recorder_counts_only_the_window_asked_for()
    {
        var recorder = new TpcCMixRecorder();
        recorder.Record("pact", TpcCTransactionType.Payment, committed: true);
        var from = Stopwatch.GetTimestamp();
        recorder.Record("pact", TpcCTransactionType.NewOrder, committed: true);
        recorder.Record("pact", TpcCTransactionType.NewOrder, committed: false);
        var to = Stopwatch.GetTimestamp() + 1;
        recorder.Record("pact", TpcCTransactionType.NewOrder, committed: true);

        var window = recorder.Summarize("pact", from, to);

        Assert.Equal((1, 1), (window.Types[0].Committed, window.Types[0].Aborted));
        Assert.Equal(0, window.Types[1].Committed);
        Assert.Equal(3, recorder.SummarizeAll("pact").Types.Sum(t => t.Committed));
    }

    private static async Task<(int Committed, int Aborted)> Issue(IssueTransaction issue, int count, int parallelism)
    {
        var (committed, aborted) = (0, 0);
        await Parallel.ForEachAsync(Enumerable.Range(0, count), new ParallelOptions { MaxDegreeOfParallelism = parallelism }, async (i, _) =>
        {
            try
            {
                await issue([i, i * 7, i * 13]);
                Interlocked.Increment(ref committed);
            }
            catch (TransactionAbortedException)
            {
                Interlocked.Increment(ref aborted);
            }
        });
        return (committed, aborted);
    }
}

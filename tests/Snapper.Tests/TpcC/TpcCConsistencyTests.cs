using System.Collections.Concurrent;
using TpcC;
using TpcC.Actors;
using TpcC.Consistency;
using TpcC.Generation;
using TpcC.Loading;
using TpcC.Messages;
using TpcC.Transactions;

namespace Snapper.Tests.TpcC;

/// <summary>
/// Concurrent mixes of all five transactions keep TPC-C's consistency conditions 1–4, and the
/// committed NewOrders and Payments are all there: no lost update, no rolled-back write left behind.
/// </summary>
public sealed class TpcCConsistencyTests
{
    private const int MaxAttempts = 20;

    private static readonly TpcCConfig Config = TpcCSilo.Partitioned with { CustomersPerDistrict = 30 };

    [Theory]
    [InlineData("pact", 400, 32)]
    [InlineData("act", 300, 4)]
    public async Task A_concurrent_mix_keeps_conditions_1_to_4_and_every_committed_write(string mode, int transactions, int concurrency)
    {
        await using var tpcc = await TpcCSilo.StartAsync(mode, Config);
        var generator = new TpcCInputGenerator(Config);
        var random = new Random(mode.Length);
        var inputs = Enumerable.Range(0, transactions).Select(_ => generator.Next(random)).ToArray();
        var committed = new ConcurrentBag<TpcCInput>();
        var aborts = new ConcurrentDictionary<AbortReason, int>();
        var retried = new ConcurrentDictionary<AbortReason, int>();

        // Like a TPC-C terminal, resubmit what was aborted for concurrency (wait-die, upgrade) or
        // in a PACT abort cascade; only the rolled-back NewOrders stay aborted.
        await Parallel.ForEachAsync(inputs, new ParallelOptions { MaxDegreeOfParallelism = concurrency }, async (input, _) =>
        {
            for (var attempt = 1; ; attempt++)
            {
                try
                {
                    await tpcc.Client.Run(input, tpcc.Mode);
                    committed.Add(input);
                    return;
                }
                catch (TransactionAbortedException e) when (e.Reason != AbortReason.User && attempt < MaxAttempts)
                {
                    retried.AddOrUpdate(e.Reason, 1, (_, n) => n + 1);
                    await Task.Delay(Random.Shared.Next(1, 1 + Math.Min(20, attempt * attempt)));
                }
                catch (TransactionAbortedException e)
                {
                    aborts.AddOrUpdate(e.Reason, 1, (_, n) => n + 1);
                    return;
                }
            }
        });

        var check = await TpcCConsistency.CheckAsync(tpcc.Client, tpcc.Mode);
        Assert.True(check.Ok, check.ToString());

        // Every transaction committed except the NewOrders naming an unused item, which rolled back,
        // and (ACTs only) transactions that lost wait-die MaxAttempts times in a row.
        var rollbacks = inputs.OfType<NewOrderInput>().Count(o => o.Lines[^1].ItemId > Config.Items);
        var gaveUp = aborts.Where(a => a.Key != AbortReason.User).Sum(a => a.Value);
        Assert.Equal(rollbacks, aborts.GetValueOrDefault(AbortReason.User));
        Assert.Equal(transactions - rollbacks - gaveUp, committed.Count);
        Assert.True(tpcc.Mode == TxnMode.Act || gaveUp == 0, $"PACTs gave up: {string.Join(", ", aborts)}");
        Assert.True(committed.Count >= transactions / 2, $"only {committed.Count} of {transactions} committed; gave up: {string.Join(", ", aborts)}; retried: {string.Join(", ", retried)}");

        // PACTs never abort for concurrency: only the batches a rolled-back NewOrder took along.
        var allowed = tpcc.Mode == TxnMode.Pact
            ? new[] { AbortReason.Cascading }
            : [AbortReason.WaitDie, AbortReason.UpgradeConflict];
        Assert.All(retried.Keys.Concat(aborts.Keys.Where(r => r != AbortReason.User)), reason => Assert.Contains(reason, allowed));

        // Every committed NewOrder took one order id, every committed Payment added its amount once.
        var orders = 0;
        decimal warehouseYtd = 0;
        for (var w = 1; w <= Config.Warehouses; w++)
        {
            warehouseYtd += (await tpcc.Warehouse(w)).Ytd;
            for (var d = 1; d <= Config.DistrictsPerWarehouse; d++)
            {
                orders += (await tpcc.District(w, d)).NextOrderId - Config.InitialOrdersPerDistrict - 1;
            }
        }

        Assert.Equal(committed.Count(i => i.Type == TpcCTransactionType.NewOrder), orders);
        var paid = committed.OfType<PaymentInput>().Sum(p => p.Amount);
        Assert.Equal((Config.Warehouses * Config.DistrictsPerWarehouse * RowGenerator.InitialDistrictYtd) + paid, warehouseYtd);
    }

    [Fact]
    public async Task The_checker_names_the_conditions_a_broken_database_violates()
    {
        await using var tpcc = await TpcCSilo.StartAsync("act", Config);
        Assert.True((await TpcCConsistency.CheckAsync(tpcc.Client, tpcc.Mode)).Ok);

        // A payment on the warehouse alone breaks condition 1; an order inserted past D_NEXT_O_ID
        // breaks 2 (max(O_ID)) and 3 (a gap among the new orders).
        await tpcc.Client.On<IWarehouseActor>(tpcc.Db.Warehouse(2), tpcc.Mode, (a, ctx) => a.Pay(ctx, 1m));
        var next = (await tpcc.District(1, 3)).NextOrderId;
        await tpcc.Client.On<IOrderActor>(tpcc.Db.Orders(1, 3, 0), tpcc.Mode, (a, ctx) =>
            a.Insert(ctx, new OrderToInsert(next + 5, 1, DateTime.UtcNow, true, [new OrderLineToInsert(1, 1, 1, 1m, "x")])));

        var result = await TpcCConsistency.CheckAsync(tpcc.Client, tpcc.Mode);

        Assert.False(result.Ok);
        Assert.Equal([1, 2, 3], result.ViolatedConditions);
        Assert.Contains(result.Violations, v => v.Condition == 1 && v.Where == "2");
        Assert.Contains(result.Violations, v => v.Condition == 2 && v.Where == "1/3");
        Assert.Contains("condition 1 (W_YTD = sum(D_YTD))", result.ToString(), StringComparison.Ordinal);
    }

    [Fact]
    public void Each_condition_is_checked_on_its_own()
    {
        OrderPartitionSummary Summary(int orders, int? maxO, int newOrders, int? minNo, int? maxNo, long olCnt, long lines) =>
            new(orders, maxO, newOrders, minNo, maxNo, olCnt, lines);

        Assert.Empty(TpcCConsistency.CheckWarehouse(1, 60m, [10m, 50m]));
        Assert.Equal(1, Assert.Single(TpcCConsistency.CheckWarehouse(1, 60m, [10m, 49.99m])).Condition);

        // District with next id 31: orders 1..30 over two partitions, new orders 22..30.
        OrderPartitionSummary[] good = [Summary(15, 29, 4, 22, 28, 150, 150), Summary(15, 30, 5, 23, 30, 140, 140)];
        Assert.Empty(TpcCConsistency.CheckDistrict(1, 1, 31, good));
        Assert.Equal(2, Assert.Single(TpcCConsistency.CheckDistrict(1, 1, 32, good)).Condition);
        Assert.Equal(2, Assert.Single(TpcCConsistency.CheckDistrict(1, 1, 31, [good[0], Summary(15, 30, 4, 23, 29, 140, 140)])).Condition);
        Assert.Equal(3, Assert.Single(TpcCConsistency.CheckDistrict(1, 1, 31, [good[0], Summary(15, 30, 4, 23, 30, 140, 140)])).Condition);
        Assert.Equal(4, Assert.Single(TpcCConsistency.CheckDistrict(1, 1, 31, [good[0], Summary(15, 30, 5, 23, 30, 140, 139)])).Condition);

        // No new orders left: conditions 2 and 3 compare only what exists.
        Assert.Empty(TpcCConsistency.CheckDistrict(1, 1, 31, [Summary(30, 30, 0, null, null, 10, 10)]));
    }
}

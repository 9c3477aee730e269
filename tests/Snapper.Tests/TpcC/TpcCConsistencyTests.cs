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

    private static readonly TimeSpan MixTimeout = TimeSpan.FromSeconds(60);

    private static readonly TpcCConfig Config = TpcCSilo.Partitioned with { CustomersPerDistrict = 30 };

    [Theory]
    [InlineData("pact", 400, 32)]
    [InlineData("act", 300, 4)]
    public async Task A_concurrent_mix_keeps_conditions_1_to_4_and_every_committed_write(string mode, int transactions, int concurrency)
    {
        await using var tpcc = await TpcCSilo.StartAsync(mode, Config);
        var generator = new TpcCInputGenerator(Config);
        var random = new Random(mode.Length);
        var inputs = Enumerable.Range(0, transactions).Select(_ => (generator.Next(random), tpcc.Mode)).ToArray();

        var run = await RunAndCheck(tpcc, inputs, concurrency);

        // PACTs never abort for concurrency, and a rolled-back NewOrder (which throws before it
        // writes) aborts alone: no PACT is ever retried.
        var allowed = tpcc.Mode == TxnMode.Pact
            ? Array.Empty<AbortReason>()
            : [AbortReason.WaitDie, AbortReason.UpgradeConflict];
        Assert.All(run.Retried.Keys.Concat(run.GaveUp.Keys), reason => Assert.Contains(reason, allowed));
    }

    /// <summary>
    /// Hybrid (Snapper §4.4): the same mix with 3 in 4 transactions as PACTs and the rest as ACTs,
    /// all at once on one database. No PACT aborts but the rolled-back NewOrders themselves; ACTs
    /// may also lose to a batch (deadlock timeout, serializability check). A PACT declaration is
    /// exact, so a DeclarationError would mean a batch waited past the declaration timeout for a
    /// call that never came: a stall, not an allowed outcome.
    /// </summary>
    [Fact]
    public async Task A_concurrent_hybrid_mix_keeps_conditions_1_to_4_and_every_committed_write()
    {
        await using var tpcc = await TpcCSilo.StartAsync("hybrid", Config);
        var generator = new TpcCInputGenerator(Config);
        var random = new Random(6);
        var inputs = Enumerable.Range(0, 400).Select(_ => (generator.Next(random), random.Next(4) == 0 ? TxnMode.Act : TxnMode.Pact)).ToArray();

        var run = await RunAndCheck(tpcc, inputs, concurrency: 16);

        Assert.Contains(run.Committed, c => c.Mode == TxnMode.Act);
        Assert.Contains(run.Committed, c => c.Mode == TxnMode.Pact);
        Assert.Empty(run.PactAborts);
        AbortReason[] actReasons =
            [AbortReason.WaitDie, AbortReason.UpgradeConflict, AbortReason.Deadlock, AbortReason.SerializabilityViolation, AbortReason.SerializabilityUncertain, AbortReason.Cascading];
        Assert.All(run.Retried.Keys.Concat(run.GaveUp.Keys), reason => Assert.Contains(reason, actReasons));
    }

    /// <summary>
    /// Runs <paramref name="inputs"/> (each in its own mode) <paramref name="concurrency"/> at a
    /// time and checks conditions 1–4 and that every committed NewOrder and Payment, and nothing
    /// else, is in the database.
    /// </summary>
    private static async Task<MixRun> RunAndCheck(TpcCSilo tpcc, (TpcCInput Input, TxnMode Mode)[] inputs, int concurrency)
    {
        var committed = new ConcurrentBag<(TpcCInput Input, TxnMode Mode)>();
        var aborts = new ConcurrentDictionary<AbortReason, int>();
        var retried = new ConcurrentDictionary<AbortReason, int>();
        var pactAborts = new ConcurrentBag<AbortReason>();
        var pactsGaveUp = new ConcurrentBag<AbortReason>();

        // Like a TPC-C terminal, resubmit what was aborted for concurrency (wait-die, upgrade,
        // hybrid conflicts) or in a PACT abort cascade; only the rolled-back NewOrders stay aborted.
        // A stall (a batch or lock never released) fails the test instead of hanging it.
        var mix = Parallel.ForEachAsync(inputs, new ParallelOptions { MaxDegreeOfParallelism = concurrency }, async (item, _) =>
        {
            for (var attempt = 1; ; attempt++)
            {
                try
                {
                    await tpcc.Client.Run(item.Input, item.Mode);
                    committed.Add(item);
                    return;
                }
                catch (TransactionAbortedException e) when (e.Reason != AbortReason.User && attempt < MaxAttempts)
                {
                    retried.AddOrUpdate(e.Reason, 1, (_, n) => n + 1);
                    if (item.Mode == TxnMode.Pact)
                    {
                        pactAborts.Add(e.Reason);
                    }

                    await Task.Delay(Random.Shared.Next(1, 1 + Math.Min(20, attempt * attempt)));
                }
                catch (TransactionAbortedException e)
                {
                    aborts.AddOrUpdate(e.Reason, 1, (_, n) => n + 1);
                    if (item.Mode == TxnMode.Pact && e.Reason != AbortReason.User)
                    {
                        pactAborts.Add(e.Reason);
                        pactsGaveUp.Add(e.Reason);
                    }

                    return;
                }
            }
        });
        await mix.WaitAsync(MixTimeout);

        var check = await TpcCConsistency.CheckAsync(tpcc.Client, tpcc.Mode);
        Assert.True(check.Ok, check.ToString());

        // Every transaction committed except the NewOrders naming an unused item, which rolled back,
        // and (ACTs only) transactions that lost MaxAttempts times in a row.
        var transactions = inputs.Length;
        var rollbacks = inputs.Select(i => i.Input).OfType<NewOrderInput>().Count(o => o.Lines[^1].ItemId > Config.Items);
        var gaveUp = aborts.Where(a => a.Key != AbortReason.User).ToDictionary(a => a.Key, a => a.Value);
        Assert.Equal(rollbacks, aborts.GetValueOrDefault(AbortReason.User));
        Assert.Equal(transactions - rollbacks - gaveUp.Values.Sum(), committed.Count);
        Assert.True(committed.Count >= transactions / 2, $"only {committed.Count} of {transactions} committed; gave up: {string.Join(", ", aborts)}; retried: {string.Join(", ", retried)}");
        Assert.True(pactsGaveUp.IsEmpty, $"PACTs gave up: {string.Join(", ", pactsGaveUp)}");

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

        Assert.Equal(committed.Count(i => i.Input.Type == TpcCTransactionType.NewOrder), orders);
        var paid = committed.Select(c => c.Input).OfType<PaymentInput>().Sum(p => p.Amount);
        Assert.Equal((Config.Warehouses * Config.DistrictsPerWarehouse * RowGenerator.InitialDistrictYtd) + paid, warehouseYtd);

        await AssertNothingLeftHeld(tpcc);
        return new MixRun([.. committed], retried, gaveUp, [.. pactAborts]);
    }

    /// <summary>
    /// Nothing is left locked or holding a place in a schedule: fresh ACTs writing every warehouse,
    /// district 1, every stock, order and customer actor commit. A lock kept by a call that
    /// outlived its aborted transaction would make each of them (younger) die by wait-die here.
    /// </summary>
    private static async Task AssertNothingLeftHeld(TpcCSilo tpcc)
    {
        var now = DateTime.UtcNow;
        for (var w = 1; w <= Config.Warehouses; w++)
        {
            TpcCInput[] probes =
            [
                new PaymentInput(w, 1, w, 1, CustomerSelector.ById(1), 1m, now),
                new NewOrderInput(w, 1, 1, [.. Enumerable.Range(1, 2 * Config.StockPartitionsPerWarehouse).Select(i => new NewOrderLine(i, w, 1))], now),
                new StockLevelInput(w, 1, 20),
                new DeliveryInput(w, 1, now),
            ];
            foreach (var probe in probes)
            {
                for (var attempt = 1; ; attempt++)
                {
                    try
                    {
                        await tpcc.Client.Run(probe, TxnMode.Act).WaitAsync(TimeSpan.FromSeconds(10));
                        break;
                    }
                    catch (TransactionAbortedException) when (attempt < 5)
                    {
                        await Task.Delay(20 * attempt);
                    }
                    catch (Exception e) when (e is TransactionAbortedException or TimeoutException)
                    {
                        Assert.Fail($"after the mix, an ACT {probe.Type} on warehouse {w} still cannot commit: {e.Message}");
                    }
                }
            }
        }
    }

    private sealed record MixRun(
        IReadOnlyList<(TpcCInput Input, TxnMode Mode)> Committed,
        IReadOnlyDictionary<AbortReason, int> Retried,
        IReadOnlyDictionary<AbortReason, int> GaveUp,
        IReadOnlyList<AbortReason> PactAborts);

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

using System.Globalization;
using Microsoft.Extensions.Logging;
using Snapper;
using TpcC.Actors;
using TpcC.Client;
using TpcC.Diagnostics;
using TpcC.Messages;

namespace TpcC.Consistency;

/// <summary>
/// Checks consistency conditions 1–4 of TPC-C §3.3.2 over a whole database, reading every
/// warehouse, district and order partition with a read-only single-actor transaction. Run it once
/// the load has stopped: the reads are separate transactions, so under load they would not see one
/// snapshot.
/// </summary>
/// <remarks>
/// Condition 2 compares max(NO_O_ID) only when the district has undelivered orders, and condition 3
/// holds trivially without them (the specification's aggregates are undefined on no rows).
/// </remarks>
public static class TpcCConsistency
{
    /// <summary>Checks <paramref name="client"/>'s database, reading with <paramref name="mode"/> transactions.</summary>
    public static async Task<TpcCConsistencyResult> CheckAsync(TpcCClient client, TxnMode mode, ILogger? logger = null, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(client);
        var db = client.Database;
        var config = db.Config;
        var violations = new List<ConsistencyViolation>();
        for (var w = 1; w <= config.Warehouses; w++)
        {
            var warehouse = await Read(() => client.On<IWarehouseActor, Schema.Warehouse>(db.Warehouse(w), mode, (a, ctx) => a.Read(ctx), cancellationToken));
            var districts = await Task.WhenAll(Enumerable.Range(1, config.DistrictsPerWarehouse).Select(d =>
                Read(() => client.On<IDistrictActor, Schema.District>(db.District(w, d), mode, (a, ctx) => a.Read(ctx), cancellationToken))));

            violations.AddRange(CheckWarehouse(w, warehouse.Ytd, [.. districts.Select(d => d.Ytd)]));

            for (var d = 1; d <= config.DistrictsPerWarehouse; d++)
            {
                var (wh, dist) = (w, d);
                var summaries = await Task.WhenAll(Enumerable.Range(0, config.OrderPartitionsPerDistrict).Select(p =>
                    Read(() => client.On<IOrderActor, OrderPartitionSummary>(db.Orders(wh, dist, p), mode, (a, ctx) => a.Summarize(ctx), cancellationToken))));
                violations.AddRange(CheckDistrict(w, d, districts[d - 1].NextOrderId, summaries));
            }
        }

        if (logger is not null)
        {
            foreach (var violation in violations)
            {
                TpcCLog.ConsistencyViolated(logger, db.Name, violation.Condition, violation.Where, violation.Detail);
            }
        }

        return new TpcCConsistencyResult(violations, config.Warehouses, config.Warehouses * config.DistrictsPerWarehouse);
    }

    /// <summary>Condition 1 for warehouse <paramref name="w"/>: W_YTD equals the sum of its districts' D_YTD.</summary>
    public static IReadOnlyList<ConsistencyViolation> CheckWarehouse(int w, decimal warehouseYtd, IReadOnlyList<decimal> districtYtds)
    {
        ArgumentNullException.ThrowIfNull(districtYtds);
        var sum = districtYtds.Sum();
        return warehouseYtd == sum
            ? []
            : [new ConsistencyViolation(1, W(w), Invariant($"W_YTD {warehouseYtd} but the districts' D_YTD sum to {sum}"))];
    }

    /// <summary>Conditions 2–4 for district (w, d), from its D_NEXT_O_ID and the summaries of all its order partitions.</summary>
    public static IReadOnlyList<ConsistencyViolation> CheckDistrict(int w, int d, int nextOrderId, IReadOnlyList<OrderPartitionSummary> partitions)
    {
        ArgumentNullException.ThrowIfNull(partitions);
        var violations = new List<ConsistencyViolation>();
        var where = W(w) + "/" + d.ToString(CultureInfo.InvariantCulture);
        var maxOrderId = partitions.Max(p => p.MaxOrderId);
        var newOrders = partitions.Sum(p => p.NewOrders);
        var maxNewOrderId = partitions.Max(p => p.MaxNewOrderId);
        var minNewOrderId = partitions.Min(p => p.MinNewOrderId);

        if (nextOrderId - 1 != (maxOrderId ?? 0))
        {
            violations.Add(new ConsistencyViolation(2, where, Invariant($"D_NEXT_O_ID - 1 = {nextOrderId - 1} but max(O_ID) = {Show(maxOrderId)}")));
        }
        else if (newOrders > 0 && nextOrderId - 1 != maxNewOrderId)
        {
            violations.Add(new ConsistencyViolation(2, where, Invariant($"D_NEXT_O_ID - 1 = {nextOrderId - 1} but max(NO_O_ID) = {Show(maxNewOrderId)}")));
        }

        if (newOrders > 0 && maxNewOrderId - minNewOrderId + 1 != newOrders)
        {
            violations.Add(new ConsistencyViolation(3, where, Invariant($"max(NO_O_ID) - min(NO_O_ID) + 1 = {maxNewOrderId - minNewOrderId + 1} but there are {newOrders} NEW-ORDER rows")));
        }

        var lineCounts = partitions.Sum(p => p.OrderLineCountSum);
        var lines = partitions.Sum(p => p.OrderLines);
        if (lineCounts != lines)
        {
            violations.Add(new ConsistencyViolation(4, where, Invariant($"sum(O_OL_CNT) = {lineCounts} but there are {lines} ORDER-LINE rows")));
        }

        return violations;
    }

    // The load has stopped, so nothing should contend with these reads; a rare abort (an ACT
    // refused while a PACT batch still commits, say) is retried a few times before it surfaces.
    private static async Task<T> Read<T>(Func<Task<T>> read)
    {
        const int attempts = 5;
        for (var attempt = 1; ; attempt++)
        {
            try
            {
                return await read();
            }
            catch (TransactionAbortedException) when (attempt < attempts)
            {
                await Task.Delay(10 * attempt);
            }
        }
    }

    private static string W(int w) => w.ToString(CultureInfo.InvariantCulture);

    private static string Show(int? value) => value?.ToString(CultureInfo.InvariantCulture) ?? "none";

    private static string Invariant(FormattableString text) => text.ToString(CultureInfo.InvariantCulture);
}

using System.Diagnostics;
using Microsoft.Extensions.Logging;
using Snapper;
using TpcC.Actors;
using TpcC.Client;
using TpcC.Diagnostics;

namespace TpcC.Loading;

/// <summary>
/// Loads a database (TPC-C §4.3): one single-actor transaction per actor, in parallel, each
/// carrying only the config and the actor's coordinates; the actor generates its own rows
/// (<see cref="RowGenerator"/>) into its working copy. No row crosses a call, and each actor's
/// state is written, logged and committed once.
/// </summary>
public static class TpcCLoader
{
    /// <summary>
    /// Loads every actor of <paramref name="client"/>'s database with <paramref name="mode"/>
    /// transactions (any mode: an actor takes PACTs and ACTs alike, also at the same time).
    /// </summary>
    /// <param name="client">The database and the Snapper client.</param>
    /// <param name="mode">ACTs or single-actor PACTs.</param>
    /// <param name="parallelism">Loads in flight; 0 for four per core.</param>
    /// <param name="clock">Dates C_SINCE, H_DATE and O_ENTRY_D; the system clock by default.</param>
    /// <param name="logger">Receives start and end of the load.</param>
    /// <param name="cancellationToken">Stops starting loads.</param>
    public static async Task<TpcCLoadResult> LoadAsync(
        TpcCClient client, TxnMode mode, int parallelism = 0, TimeProvider? clock = null, ILogger? logger = null, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(client);
        var db = client.Database;
        var now = (clock ?? TimeProvider.System).GetUtcNow().UtcDateTime;
        var loads = Loads(client, db, mode, now).ToList();
        if (logger is not null)
        {
            TpcCLog.LoadStarted(logger, db.Name, loads.Count, mode.ToString());
        }

        var started = Stopwatch.GetTimestamp();
        var options = new ParallelOptions
        {
            MaxDegreeOfParallelism = parallelism > 0 ? parallelism : 4 * Environment.ProcessorCount,
            CancellationToken = cancellationToken,
        };
        await Parallel.ForEachAsync(loads, options, async (load, _) => await load());
        var elapsed = Stopwatch.GetElapsedTime(started);
        if (logger is not null)
        {
            TpcCLog.LoadFinished(logger, db.Name, loads.Count, (long)elapsed.TotalMilliseconds);
        }

        return new TpcCLoadResult(loads.Count, elapsed);
    }

    // The big states (stock, orders, customers) first, so the small ones fill the gaps at the end.
    private static IEnumerable<Func<Task>> Loads(TpcCClient client, TpcCDatabase db, TxnMode mode, DateTime now)
    {
        var config = db.Config;
        for (var w = 1; w <= config.Warehouses; w++)
        {
            var wh = w;
            for (var s = 0; s < config.StockPartitionsPerWarehouse; s++)
            {
                var partition = s;
                yield return () => client.On<IStockActor>(db.Stock(wh, partition), mode, (a, ctx) => a.Load(ctx, db, wh, partition));
            }

            for (var d = 1; d <= config.DistrictsPerWarehouse; d++)
            {
                var district = d;
                for (var p = 0; p < config.OrderPartitionsPerDistrict; p++)
                {
                    var partition = p;
                    yield return () => client.On<IOrderActor>(db.Orders(wh, district, partition), mode, (a, ctx) => a.Load(ctx, db, wh, district, partition, now));
                }

                for (var p = 0; p < config.CustomerPartitionsPerDistrict; p++)
                {
                    var partition = p;
                    yield return () => client.On<ICustomerActor>(db.Customers(wh, district, partition), mode, (a, ctx) => a.Load(ctx, db, wh, district, partition, now));
                }

                yield return () => client.On<IDistrictActor>(db.District(wh, district), mode, (a, ctx) => a.Load(ctx, db, wh, district));
            }

            yield return () => client.On<IWarehouseActor>(db.Warehouse(wh), mode, (a, ctx) => a.Load(ctx, db, wh));
        }

        for (var p = 0; p < config.ItemPartitions; p++)
        {
            var partition = p;
            yield return () => client.On<IItemActor>(db.Items(partition), mode, (a, ctx) => a.Load(ctx, db, partition));
        }
    }
}

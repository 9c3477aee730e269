using Snapper.Configuration;
using Snapper.Tests.Infrastructure;
using TpcC;
using TpcC.Actors;
using TpcC.Client;
using TpcC.Loading;
using TpcC.Schema;

namespace Snapper.Tests.TpcC;

/// <summary>
/// A test silo with one loaded TPC-C database, loaded and read in one transaction mode (ACTs for
/// <c>hybrid</c>, whose transactions pick their own mode), and reads of its rows.
/// </summary>
internal sealed class TpcCSilo : IAsyncDisposable
{
    private TpcCSilo(TestSilo silo, TpcCClient client, TxnMode mode)
    {
        Silo = silo;
        Client = client;
        Mode = mode;
    }

    /// <summary>Two warehouses of three districts with 10 customers each; every table cut into two or three actors.</summary>
    public static TpcCConfig Partitioned { get; } = new()
    {
        Warehouses = 2,
        DistrictsPerWarehouse = 3,
        CustomersPerDistrict = 10,
        Items = 60,
        ItemPartitions = 2,
        StockPartitionsPerWarehouse = 3,
        CustomerPartitionsPerDistrict = 2,
        OrderPartitionsPerDistrict = 2,
    };

    /// <summary>The same database with one actor per table and district.</summary>
    public static TpcCConfig Unpartitioned { get; } = Partitioned with
    {
        ItemPartitions = 1,
        StockPartitionsPerWarehouse = 1,
        CustomerPartitionsPerDistrict = 1,
        OrderPartitionsPerDistrict = 1,
    };

    public TestSilo Silo { get; }

    public TpcCClient Client { get; }

    public TxnMode Mode { get; }

    public TpcCDatabase Db => Client.Database;

    public static TxnMode ModeOf(string mode) => mode == "pact" ? TxnMode.Pact : TxnMode.Act;

    /// <summary>
    /// A silo with two coordinators and <paramref name="configure"/>'s settings, whose database is
    /// loaded unless <paramref name="load"/> is false (a restart over logs that hold it).
    /// </summary>
    public static async Task<TpcCSilo> StartAsync(string mode, TpcCConfig config, Action<SnapperOptions>? configure = null, bool load = true)
    {
        var silo = await TestSilo.StartAsync(s => s.Configure(o =>
        {
            o.CoordinatorCount = 2;
            configure?.Invoke(o);
        }));
        var client = new TpcCClient(silo.Client, new TpcCDatabase("test", config));
        if (load)
        {
            await TpcCLoader.LoadAsync(client, ModeOf(mode));
        }

        return new TpcCSilo(silo, client, ModeOf(mode));
    }

    public Task<Warehouse> Warehouse(int w) => Client.On<IWarehouseActor, Warehouse>(Db.Warehouse(w), Mode, (a, ctx) => a.Read(ctx));

    public Task<District> District(int w, int d) => Client.On<IDistrictActor, District>(Db.District(w, d), Mode, (a, ctx) => a.Read(ctx));

    public Task<CustomerPartition> CustomerPartition(int w, int d, int p) => Client.On<ICustomerActor, CustomerPartition>(Db.Customers(w, d, p), Mode, (a, ctx) => a.Read(ctx));

    public Task<OrderPartition> OrderPartition(int w, int d, int p) => Client.On<IOrderActor, OrderPartition>(Db.Orders(w, d, p), Mode, (a, ctx) => a.Read(ctx));

    public Task<StockPartition> StockPartition(int w, int p) => Client.On<IStockActor, StockPartition>(Db.Stock(w, p), Mode, (a, ctx) => a.Read(ctx));

    public Task<ItemCatalogue> ItemPartition(int p) => Client.On<IItemActor, ItemCatalogue>(Db.Items(p), Mode, (a, ctx) => a.Read(ctx));

    public async Task<Customer> Customer(int w, int d, int c) => (await CustomerPartition(w, d, Db.CustomerPartitionOf(w, d, c))).Customers[c];

    public async Task<Stock> Stock(int w, int item) => (await StockPartition(w, Db.StockPartitionOf(item))).Rows[item];

    public async Task<Item> Item(int item) => (await ItemPartition(Db.ItemPartitionOf(item))).Items[item];

    /// <summary>Every order partition of district (w, d).</summary>
    public async Task<OrderPartition[]> OrderPartitions(int w, int d) =>
        await Task.WhenAll(Enumerable.Range(0, Db.Config.OrderPartitionsPerDistrict).Select(p => OrderPartition(w, d, p)));

    public async ValueTask DisposeAsync() => await Silo.DisposeAsync();
}

using System.Globalization;
using Snapper;
using TpcC.Actors;
using TpcC.Loading;
using TpcC.Transactions;

namespace TpcC;

/// <summary>
/// One TPC-C database: a <see cref="TpcCConfig"/> plus a name that prefixes every actor key, so
/// several identical databases (one per transaction mode, say) live side by side in one silo.
/// Maps rows to the actors that hold them; every map is a pure function of the config, so a PACT's
/// declaration can be computed from a transaction's input alone.
/// </summary>
/// <remarks>Immutable and shared: actor ids are built once here, not per transaction.</remarks>
[GenerateSerializer, Immutable]
public sealed class TpcCDatabase
{
    [Id(0)]
    private readonly ActorId[] warehouses;
    [Id(1)]
    private readonly ActorId[] districts;
    [Id(2)]
    private readonly ActorId[] customers;
    [Id(3)]
    private readonly ActorId[] orders;
    [Id(4)]
    private readonly ActorId[] stock;
    [Id(5)]
    private readonly ActorId[] items;

    /// <summary>The database <paramref name="name"/> of size <paramref name="config"/>.</summary>
    public TpcCDatabase(string name, TpcCConfig config)
    {
        ArgumentException.ThrowIfNullOrEmpty(name);
        ArgumentNullException.ThrowIfNull(config);
        if (name.Contains('/', StringComparison.Ordinal))
        {
            throw new ArgumentException($"A database name cannot contain '/', which separates the parts of actor keys: '{name}'.", nameof(name));
        }

        config.Validate();
        Name = name;
        Config = config;
        var (w, d) = (config.Warehouses, config.DistrictsPerWarehouse);
        warehouses = Ids<IWarehouseActor>(w, 1, 1);
        districts = Ids<IDistrictActor>(w, d, 1);
        customers = Ids<ICustomerActor>(w, d, config.CustomerPartitionsPerDistrict);
        orders = Ids<IOrderActor>(w, d, config.OrderPartitionsPerDistrict);
        stock = Ids<IStockActor>(w, 1, config.StockPartitionsPerWarehouse);
        items = new ActorId[config.ItemPartitions];
        for (var p = 0; p < items.Length; p++)
        {
            items[p] = ActorId.Create<IItemActor>(Key(p));
        }
    }

    /// <summary>Prefix of every actor key of this database.</summary>
    [Id(6)]
    public string Name { get; }

    /// <summary>Sizes and partitioning.</summary>
    [Id(7)]
    public TpcCConfig Config { get; }

    /// <summary>The actor holding warehouse <paramref name="w"/> (1-based).</summary>
    public ActorId Warehouse(int w) => warehouses[WarehouseIndex(w)];

    /// <summary>The actor holding district <paramref name="d"/> of warehouse <paramref name="w"/> (1-based).</summary>
    public ActorId District(int w, int d) => districts[DistrictIndex(w, d)];

    /// <summary>Customer actor <paramref name="partition"/> (0-based) of district (w, d).</summary>
    public ActorId Customers(int w, int d, int partition) =>
        customers[(DistrictIndex(w, d) * Config.CustomerPartitionsPerDistrict) + CheckPartition(partition, Config.CustomerPartitionsPerDistrict)];

    /// <summary>Order actor <paramref name="partition"/> (0-based) of district (w, d).</summary>
    public ActorId Orders(int w, int d, int partition) =>
        orders[(DistrictIndex(w, d) * Config.OrderPartitionsPerDistrict) + CheckPartition(partition, Config.OrderPartitionsPerDistrict)];

    /// <summary>Stock actor <paramref name="partition"/> (0-based) of warehouse <paramref name="w"/>.</summary>
    public ActorId Stock(int w, int partition) =>
        stock[(WarehouseIndex(w) * Config.StockPartitionsPerWarehouse) + CheckPartition(partition, Config.StockPartitionsPerWarehouse)];

    /// <summary>Item actor <paramref name="partition"/> (0-based).</summary>
    public ActorId Items(int partition) => items[CheckPartition(partition, Config.ItemPartitions)];

    /// <summary>The item partition of item <paramref name="itemId"/>; also defined for ids past the catalogue (the unused id of a rolled-back NewOrder).</summary>
    public int ItemPartitionOf(int itemId) => Modulo(itemId - 1, Config.ItemPartitions);

    /// <summary>The stock partition of item <paramref name="itemId"/> in any warehouse.</summary>
    public int StockPartitionOf(int itemId) => Modulo(itemId - 1, Config.StockPartitionsPerWarehouse);

    /// <summary>The customer partition holding the customers named <paramref name="lastName"/>.</summary>
    public int CustomerPartitionOf(string lastName) =>
        Config.CustomerPartitionsPerDistrict == 1 ? 0 : (int)(StableHash(lastName) % (uint)Config.CustomerPartitionsPerDistrict);

    /// <summary>The customer partition holding customer <paramref name="c"/> of district (w, d).</summary>
    public int CustomerPartitionOf(int w, int d, int c) =>
        Config.CustomerPartitionsPerDistrict == 1 ? 0 : CustomerPartitionOf(LastNames.Of(Config, w, d, c));

    /// <summary>The order partition holding the orders of customers named <paramref name="lastName"/>.</summary>
    public int OrderPartitionOf(string lastName) =>
        Config.OrderPartitionsPerDistrict == 1 ? 0 : (int)(StableHash(lastName) % (uint)Config.OrderPartitionsPerDistrict);

    /// <summary>The order partition holding the orders of customer <paramref name="c"/> of district (w, d).</summary>
    public int OrderPartitionOf(int w, int d, int c) =>
        Config.OrderPartitionsPerDistrict == 1 ? 0 : OrderPartitionOf(LastNames.Of(Config, w, d, c));

    /// <summary>The customer partition of district (w, d) holding the customer <paramref name="customer"/> selects.</summary>
    public int CustomerPartitionOf(int w, int d, CustomerSelector customer)
    {
        ArgumentNullException.ThrowIfNull(customer);
        return customer.Id is { } id ? CustomerPartitionOf(w, d, id) : CustomerPartitionOf(customer.LastName!);
    }

    /// <summary>The order partition of district (w, d) holding the orders of the customer <paramref name="customer"/> selects.</summary>
    public int OrderPartitionOf(int w, int d, CustomerSelector customer)
    {
        ArgumentNullException.ThrowIfNull(customer);
        return customer.Id is { } id ? OrderPartitionOf(w, d, id) : OrderPartitionOf(customer.LastName!);
    }

    /// <summary>Every actor of the database: what the loader loads.</summary>
    public IEnumerable<ActorId> AllActors() => [.. items, .. warehouses, .. districts, .. customers, .. orders, .. stock];

    /// <inheritdoc />
    public override string ToString() => $"TPC-C database '{Name}' ({Config})";

    /// <summary>
    /// FNV-1a over the UTF-16 code units: stable across processes and runs (string.GetHashCode is
    /// randomized per process), so every silo and every recovery maps a name to the same actor.
    /// </summary>
    internal static uint StableHash(string value)
    {
        var hash = 2_166_136_261u;
        foreach (var c in value)
        {
            hash = unchecked((hash ^ c) * 16_777_619u);
        }

        return hash;
    }

    private static int Modulo(int value, int n) => ((value % n) + n) % n;

    private static int CheckPartition(int partition, int count) =>
        partition >= 0 && partition < count ? partition : throw new ArgumentOutOfRangeException(nameof(partition), partition, $"Partitions are 0 to {count - 1}.");

    private int WarehouseIndex(int w) =>
        w >= 1 && w <= Config.Warehouses ? w - 1 : throw new ArgumentOutOfRangeException(nameof(w), w, $"Warehouses are 1 to {Config.Warehouses}.");

    private int DistrictIndex(int w, int d) =>
        d >= 1 && d <= Config.DistrictsPerWarehouse
            ? (WarehouseIndex(w) * Config.DistrictsPerWarehouse) + d - 1
            : throw new ArgumentOutOfRangeException(nameof(d), d, $"Districts are 1 to {Config.DistrictsPerWarehouse}.");

    // Keys: name/w/d/p, with only the parts the actor kind has.
    private ActorId[] Ids<TActor>(int warehouseCount, int perWarehouse, int perUnit)
        where TActor : ITransactionalActor
    {
        var ids = new ActorId[warehouseCount * perWarehouse * perUnit];
        var i = 0;
        for (var w = 1; w <= warehouseCount; w++)
        {
            for (var d = 1; d <= perWarehouse; d++)
            {
                for (var p = 0; p < perUnit; p++)
                {
                    var key = typeof(TActor) == typeof(IWarehouseActor) ? Key(w)
                        : typeof(TActor) == typeof(IDistrictActor) ? Key(w, d)
                        : typeof(TActor) == typeof(IStockActor) ? Key(w, p)
                        : Key(w, d, p);
                    ids[i++] = ActorId.Create<TActor>(key);
                }
            }
        }

        return ids;
    }

    private string Key(params int[] parts) =>
        Name + "/" + string.Join('/', parts.Select(p => p.ToString(CultureInfo.InvariantCulture)));
}

namespace TpcC;

/// <summary>
/// The size of a TPC-C database and how its tables are cut into actors. The defaults are the
/// specification's cardinalities (TPC-C §1.2, §4.3): 10 districts per warehouse, 3,000 customers
/// per district, 100,000 items. The partition counts exist because Snapper copies an actor's whole
/// state when a transaction first writes it and logs the whole state when it commits (Snapper §5.4.2
/// names this cost): an actor holding a whole table would make every write a copy of that table.
/// </summary>
/// <remarks>
/// <para>
/// Scaling: orders per district equal customers per district (as in the specification, 3,000 of
/// each); the last 30% of them are undelivered new orders (900 of 3,000); a district starts with
/// <c>D_NEXT_O_ID</c> = customers + 1 and <c>D_YTD</c> = 30,000.00, and a warehouse with
/// <c>W_YTD</c> = districts × 30,000.00 so that consistency condition 1 holds from the start
/// (300,000.00 with the specified 10 districts). NURand's A constants shrink with the ranges they
/// draw from (<see cref="Loading.NURand.ScaledA"/>).
/// </para>
/// <para>
/// <see cref="Benchmark"/> is the load generator's default: the same schema at 1/10 of the
/// customers and items, cut so that no written actor state exceeds a few tens of kilobytes; two
/// warehouses of it load in about a second.
/// </para>
/// </remarks>
[GenerateSerializer]
public sealed record TpcCConfig
{
    /// <summary>Districts per warehouse in the specification, and the most this sample supports (S_DIST_01..10).</summary>
    public const int SpecDistrictsPerWarehouse = 10;

    /// <summary>Customers per district in the specification.</summary>
    public const int SpecCustomersPerDistrict = 3000;

    /// <summary>Items in the specification's catalogue (and stock rows per warehouse).</summary>
    public const int SpecItems = 100_000;

    /// <summary>Number of warehouses (the scale factor W). Default 1.</summary>
    [Id(0)]
    public int Warehouses { get; init; } = 1;

    /// <summary>Districts per warehouse, 1 to 10. Default 10.</summary>
    [Id(1)]
    public int DistrictsPerWarehouse { get; init; } = SpecDistrictsPerWarehouse;

    /// <summary>Customers (and initial orders) per district. Default 3,000; tests use a few dozen.</summary>
    [Id(2)]
    public int CustomersPerDistrict { get; init; } = SpecCustomersPerDistrict;

    /// <summary>Items in the catalogue and stock rows per warehouse. Default 100,000.</summary>
    [Id(3)]
    public int Items { get; init; } = SpecItems;

    /// <summary>
    /// Item actors the read-only catalogue is split into (item i lives in partition (i−1) mod n).
    /// Items are only read, which copies nothing, so this only spreads the PACT schedule. Default 10.
    /// </summary>
    [Id(4)]
    public int ItemPartitions { get; init; } = 10;

    /// <summary>
    /// Stock actors per warehouse (item i's stock lives in partition (i−1) mod n): the knob of the
    /// Snapper paper's TPC-C (§5.1.1) that sets how many actors a NewOrder touches. Default 1,000
    /// (100 rows of 100,000 each).
    /// </summary>
    [Id(5)]
    public int StockPartitionsPerWarehouse { get; init; } = 1000;

    /// <summary>
    /// Customer actors per district (customers with history). A customer's partition is a stable
    /// hash of its last name, so a by-name Payment or OrderStatus reaches exactly one partition and
    /// its PACT declaration follows from the input. Default 10.
    /// </summary>
    [Id(6)]
    public int CustomerPartitionsPerDistrict { get; init; } = 10;

    /// <summary>
    /// Order actors per district (ORDER, NEW-ORDER and ORDER-LINE rows). An order lives in the
    /// partition of its customer's last name, like the customer, so OrderStatus reaches one order
    /// actor; Delivery and StockLevel read every partition of a district. Default 10.
    /// </summary>
    [Id(7)]
    public int OrderPartitionsPerDistrict { get; init; } = 10;

    /// <summary>Seed of every loaded value: equal configs load equal databases.</summary>
    [Id(8)]
    public int Seed { get; init; } = 20_260_101;

    /// <summary>
    /// The load generator's default database: 10 districts per warehouse, 300 customers per district,
    /// 10,000 items; 30 customers per customer actor, 30 initial orders per order actor, 100 stock
    /// rows per stock actor, 1,000 items per item actor.
    /// </summary>
    public static TpcCConfig Benchmark(int warehouses) => new()
    {
        Warehouses = warehouses,
        CustomersPerDistrict = 300,
        Items = 10_000,
        ItemPartitions = 10,
        StockPartitionsPerWarehouse = 100,
        CustomerPartitionsPerDistrict = 10,
        OrderPartitionsPerDistrict = 10,
    };

    /// <summary>Initial orders per district: one per customer, as in the specification.</summary>
    public int InitialOrdersPerDistrict => CustomersPerDistrict;

    /// <summary>Undelivered orders per district at load: the last 30% (900 of 3,000).</summary>
    public int InitialNewOrdersPerDistrict => (int)((long)CustomersPerDistrict * 900 / SpecCustomersPerDistrict);

    /// <summary>The first undelivered order id at load (2,101 with 3,000 customers).</summary>
    public int FirstNewOrderId => InitialOrdersPerDistrict - InitialNewOrdersPerDistrict + 1;

    /// <summary>How many distinct last names exist: 1,000, or fewer when a district has fewer customers.</summary>
    public int LastNameCount => Math.Min(1000, CustomersPerDistrict);

    /// <summary>Throws <see cref="ArgumentException"/> naming the first setting out of range.</summary>
    public void Validate()
    {
        Require(Warehouses >= 1, nameof(Warehouses), Warehouses, "at least 1");
        Require(DistrictsPerWarehouse is >= 1 and <= SpecDistrictsPerWarehouse, nameof(DistrictsPerWarehouse), DistrictsPerWarehouse, "between 1 and 10 (a stock row has 10 S_DIST columns)");
        Require(CustomersPerDistrict >= 1, nameof(CustomersPerDistrict), CustomersPerDistrict, "at least 1");
        Require(Items >= 1, nameof(Items), Items, "at least 1");
        Require(ItemPartitions >= 1 && ItemPartitions <= Items, nameof(ItemPartitions), ItemPartitions, "between 1 and Items");
        Require(StockPartitionsPerWarehouse >= 1 && StockPartitionsPerWarehouse <= Items, nameof(StockPartitionsPerWarehouse), StockPartitionsPerWarehouse, "between 1 and Items");
        Require(CustomerPartitionsPerDistrict >= 1, nameof(CustomerPartitionsPerDistrict), CustomerPartitionsPerDistrict, "at least 1");
        Require(OrderPartitionsPerDistrict >= 1, nameof(OrderPartitionsPerDistrict), OrderPartitionsPerDistrict, "at least 1");
    }

    private static void Require(bool ok, string name, int value, string expected)
    {
        if (!ok)
        {
            throw new ArgumentException($"TpcCConfig.{name} must be {expected}, got {value}.", name);
        }
    }
}

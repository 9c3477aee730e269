using TpcC.Loading;
using TpcC.Transactions;

namespace TpcC.Generation;

/// <summary>
/// Transaction inputs as TPC-C §2 draws them: the 45/43/4/4/4 mix, NURand customers and items,
/// 1% rolled-back NewOrders, 1% remote order lines, 15% remote and 60% by-name payments.
/// Stateless: every draw comes from the caller's seeded <see cref="Random"/>, so a caller that owns
/// its Random gets a reproducible sequence and callers never contend.
/// </summary>
/// <remarks>Warehouses are drawn uniformly per transaction: there are no terminals bound to a home warehouse.</remarks>
public sealed class TpcCInputGenerator
{
    /// <summary>Percent of NewOrders whose last line names an unused item and so roll back (§2.4.1.4).</summary>
    public const int InvalidItemPercent = 1;

    /// <summary>Percent of order lines supplied by another warehouse (§2.4.1.5), when there is one.</summary>
    public const int RemoteLinePercent = 1;

    /// <summary>Percent of Payments by a customer of another warehouse (§2.5.1.2), when there is one.</summary>
    public const int RemotePaymentPercent = 15;

    /// <summary>Percent of Payments and OrderStatus selecting the customer by last name (§2.5.1.2, §2.6.1.2).</summary>
    public const int ByLastNamePercent = 60;

    private readonly TpcCConfig config;
    private readonly TimeProvider clock;
    private readonly int customerA;
    private readonly int itemA;
    private readonly int lastNameA;

    /// <summary>A generator for databases of size <paramref name="config"/>, dating inputs with <paramref name="clock"/> (system clock by default).</summary>
    public TpcCInputGenerator(TpcCConfig config, TimeProvider? clock = null)
    {
        ArgumentNullException.ThrowIfNull(config);
        config.Validate();
        this.config = config;
        this.clock = clock ?? TimeProvider.System;
        customerA = NURand.ScaledA(NURand.CustomerIdA, TpcCConfig.SpecCustomersPerDistrict, config.CustomersPerDistrict);
        itemA = NURand.ScaledA(NURand.ItemIdA, TpcCConfig.SpecItems, config.Items);
        lastNameA = NURand.ScaledA(NURand.LastNameA, 1000, config.LastNameCount);
    }

    /// <summary>The transaction type of the standard mix (§5.2.3): 45% NewOrder, 43% Payment, 4% each of the others; always NewOrder if <paramref name="newOrderOnly"/>.</summary>
    public static TpcCTransactionType NextType(Random random, bool newOrderOnly = false)
    {
        ArgumentNullException.ThrowIfNull(random);
        if (newOrderOnly)
        {
            return TpcCTransactionType.NewOrder;
        }

        return random.Next(100) switch
        {
            < 45 => TpcCTransactionType.NewOrder,
            < 88 => TpcCTransactionType.Payment,
            < 92 => TpcCTransactionType.OrderStatus,
            < 96 => TpcCTransactionType.Delivery,
            _ => TpcCTransactionType.StockLevel,
        };
    }

    /// <summary>The input of the next transaction of the mix.</summary>
    public TpcCInput Next(Random random, bool newOrderOnly = false) => NextType(random, newOrderOnly) switch
    {
        TpcCTransactionType.NewOrder => NewOrder(random),
        TpcCTransactionType.Payment => Payment(random),
        TpcCTransactionType.OrderStatus => OrderStatus(random),
        TpcCTransactionType.Delivery => Delivery(random),
        _ => StockLevel(random),
    };

    /// <summary>NewOrder (§2.4.1): 5–15 lines of NURand items, quantity 1–10; 1% end with an unused item id.</summary>
    public NewOrderInput NewOrder(Random random)
    {
        ArgumentNullException.ThrowIfNull(random);
        var w = Warehouse(random);
        var d = District(random);
        var c = CustomerId(random);
        var count = random.Next(5, 16);
        var rollback = random.Next(1, 101) <= InvalidItemPercent;
        var lines = new NewOrderLine[count];
        for (var i = 0; i < count; i++)
        {
            var item = rollback && i == count - 1 ? config.Items + 1 : ItemId(random);
            var supply = config.Warehouses > 1 && random.Next(1, 101) <= RemoteLinePercent ? OtherWarehouse(random, w) : w;
            lines[i] = new NewOrderLine(item, supply, random.Next(1, 11));
        }

        return new NewOrderInput(w, d, c, lines, Now());
    }

    /// <summary>Payment (§2.5.1): 85% at the customer's own district, else a random district of another warehouse; 60% by last name; 1.00–5,000.00.</summary>
    public PaymentInput Payment(Random random)
    {
        ArgumentNullException.ThrowIfNull(random);
        var w = Warehouse(random);
        var d = District(random);
        var (cw, cd) = (w, d);
        if (random.Next(1, 101) > 100 - RemotePaymentPercent)
        {
            // With a single warehouse the "remote" customer is of a random district of the same one.
            cw = config.Warehouses > 1 ? OtherWarehouse(random, w) : w;
            cd = District(random);
        }

        return new PaymentInput(w, d, cw, cd, Customer(random), RandomText.Money(random, 1m, 5_000m), Now());
    }

    /// <summary>OrderStatus (§2.6.1): a customer of a random district, 60% by last name.</summary>
    public OrderStatusInput OrderStatus(Random random)
    {
        ArgumentNullException.ThrowIfNull(random);
        return new OrderStatusInput(Warehouse(random), District(random), Customer(random));
    }

    /// <summary>Delivery (§2.7.1): a carrier 1–10.</summary>
    public DeliveryInput Delivery(Random random)
    {
        ArgumentNullException.ThrowIfNull(random);
        return new DeliveryInput(Warehouse(random), random.Next(1, 11), Now());
    }

    /// <summary>StockLevel (§2.8.1): a threshold 10–20.</summary>
    public StockLevelInput StockLevel(Random random)
    {
        ArgumentNullException.ThrowIfNull(random);
        return new StockLevelInput(Warehouse(random), District(random), random.Next(10, 21));
    }

    /// <summary>A customer id, NURand(1023, 1, 3000) scaled to the district's customers.</summary>
    public int CustomerId(Random random) => NURand.Next(random, customerA, 1, config.CustomersPerDistrict, NURand.CustomerIdC);

    /// <summary>An item id, NURand(8191, 1, 100000) scaled to the catalogue.</summary>
    public int ItemId(Random random) => NURand.Next(random, itemA, 1, config.Items, NURand.ItemIdC);

    /// <summary>A last name that exists, from NURand(255, 0, 999) with C-Run, scaled to the names the districts have.</summary>
    public string LastName(Random random) => LastNames.FromNumber(NURand.Next(random, lastNameA, 0, config.LastNameCount - 1, NURand.LastNameRunC));

    private CustomerSelector Customer(Random random) =>
        random.Next(1, 101) <= ByLastNamePercent ? CustomerSelector.ByLastName(LastName(random)) : CustomerSelector.ById(CustomerId(random));

    private int Warehouse(Random random) => random.Next(1, config.Warehouses + 1);

    private int District(Random random) => random.Next(1, config.DistrictsPerWarehouse + 1);

    private int OtherWarehouse(Random random, int home)
    {
        var other = random.Next(1, config.Warehouses);
        return other >= home ? other + 1 : other;
    }

    private DateTime Now() => clock.GetUtcNow().UtcDateTime;
}

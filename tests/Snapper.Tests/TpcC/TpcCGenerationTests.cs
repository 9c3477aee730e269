using TpcC;
using TpcC.Client;
using TpcC.Generation;
using TpcC.Loading;
using TpcC.Transactions;

namespace Snapper.Tests.TpcC;

/// <summary>The parts of TPC-C that need no silo: NURand, last names, the input mix, partitioning and declarations.</summary>
public sealed class TpcCGenerationTests
{
    [Fact]
    public void Last_names_are_three_syllables_of_the_numbers_digits()
    {
        Assert.Equal("BARBARBAR", LastNames.FromNumber(0));
        Assert.Equal("PRICALLYOUGHT", LastNames.FromNumber(371));
        Assert.Equal("EINGEINGEING", LastNames.FromNumber(999));

        var config = new TpcCConfig { CustomersPerDistrict = 3000, Items = 10 };
        Assert.Equal("BARBAROUGHT", LastNames.Of(config, 1, 1, 2));
        Assert.Equal(LastNames.Of(config, 1, 2, 2500), LastNames.Of(config, 1, 2, 2500));
        var later = Enumerable.Range(1001, 2000).Select(c => LastNames.Of(config, 1, 1, c)).ToList();
        Assert.True(later.Distinct().Count() > 100, "customers past 1,000 must get NURand names, not one name");
    }

    [Fact]
    public void NURand_stays_in_range_and_is_skewed()
    {
        var random = new Random(5);
        var counts = new int[3001];
        for (var i = 0; i < 300_000; i++)
        {
            counts[NURand.Next(random, NURand.CustomerIdA, 1, 3000, NURand.CustomerIdC)]++;
        }

        Assert.Equal(0, counts[0]);
        Assert.True(counts.Max() > 3 * counts.Skip(1).Average(), "NURand should favour some ids");
        Assert.Equal(1023, NURand.ScaledA(1023, 3000, 3000));
        Assert.Equal(63, NURand.ScaledA(1023, 3000, 300));
        Assert.Equal(511, NURand.ScaledA(8191, 100_000, 10_000));
        Assert.Equal(0, NURand.ScaledA(255, 1000, 1));
    }

    [Fact]
    public void The_generator_draws_the_standard_mix_and_its_percentages()
    {
        var config = TpcCSilo.Partitioned with { Warehouses = 3 };
        var generator = new TpcCInputGenerator(config);
        var random = new Random(17);
        var inputs = Enumerable.Range(0, 40_000).Select(_ => generator.Next(random)).ToList();

        double Share<T>(IEnumerable<T> all, Func<T, bool> which) => 100.0 * all.Count(which) / all.Count();
        Assert.InRange(Share(inputs, i => i.Type == TpcCTransactionType.NewOrder), 44, 46);
        Assert.InRange(Share(inputs, i => i.Type == TpcCTransactionType.Payment), 42, 44);
        foreach (var type in new[] { TpcCTransactionType.OrderStatus, TpcCTransactionType.Delivery, TpcCTransactionType.StockLevel })
        {
            Assert.InRange(Share(inputs, i => i.Type == type), 3.5, 4.5);
        }

        var newOrders = inputs.OfType<NewOrderInput>().ToList();
        Assert.All(newOrders, o => Assert.InRange(o.Lines.Count, 5, 15));
        Assert.InRange(Share(newOrders, o => o.Lines[^1].ItemId == config.Items + 1), 0.6, 1.5);
        Assert.All(newOrders, o => Assert.All(o.Lines.SkipLast(1), l => Assert.InRange(l.ItemId, 1, config.Items)));
        var lines = newOrders.SelectMany(o => o.Lines.Select(l => (o.WarehouseId, l))).ToList();
        Assert.InRange(Share(lines, x => x.l.SupplyWarehouseId != x.WarehouseId), 0.7, 1.3);
        Assert.All(lines, x => Assert.InRange(x.l.Quantity, 1, 10));

        var payments = inputs.OfType<PaymentInput>().ToList();
        Assert.InRange(Share(payments, p => p.CustomerWarehouseId != p.WarehouseId), 13.5, 16.5);
        Assert.InRange(Share(payments, p => p.Customer.LastName is not null), 58, 62);
        Assert.All(payments, p => Assert.InRange(p.Amount, 1m, 5000m));

        // Every last name drawn belongs to a customer that exists.
        var names = Enumerable.Range(1, config.CustomersPerDistrict).Select(c => LastNames.Of(config, 1, 1, c)).ToHashSet();
        Assert.All(payments.Select(p => p.Customer.LastName).OfType<string>(), n => Assert.Contains(n, names));
        Assert.All(inputs.OfType<StockLevelInput>(), s => Assert.InRange(s.Threshold, 10, 20));
        Assert.All(inputs.OfType<DeliveryInput>(), s => Assert.InRange(s.CarrierId, 1, 10));
        Assert.All(Enumerable.Range(0, 100).Select(_ => TpcCInputGenerator.NextType(random, newOrderOnly: true)), t => Assert.Equal(TpcCTransactionType.NewOrder, t));
    }

    [Fact]
    public void Declarations_name_exactly_the_actors_each_transaction_calls()
    {
        var db = new TpcCDatabase("d", TpcCSilo.Partitioned);
        var config = db.Config;

        var newOrder = TpcCAccess.For(db, new NewOrderInput(1, 2, 3, [new(1, 1, 1), new(4, 2, 1), new(1, 1, 2)], DateTime.UtcNow));
        var expected = new[]
        {
            db.District(1, 2), db.Warehouse(1), db.Customers(1, 2, db.CustomerPartitionOf(1, 2, 3)), db.Orders(1, 2, db.OrderPartitionOf(1, 2, 3)),
            db.Items(db.ItemPartitionOf(1)), db.Items(db.ItemPartitionOf(4)), db.Stock(1, db.StockPartitionOf(1)), db.Stock(2, db.StockPartitionOf(4)),
        }.Distinct().ToList();
        Assert.Equal(expected.Select(a => a.ToString()).Order(), newOrder.Accesses.Keys.Select(a => a.ToString()).Order());
        Assert.All(newOrder.Accesses.Values, calls => Assert.Equal(1, calls));

        var delivery = TpcCAccess.For(db, new DeliveryInput(2, 1, DateTime.UtcNow));
        Assert.Equal(1 + (config.DistrictsPerWarehouse * (config.OrderPartitionsPerDistrict + config.CustomerPartitionsPerDistrict)), delivery.Accesses.Count);
        Assert.Equal(2, delivery.CallsOn(db.Orders(2, 3, 1)));
        Assert.Equal(1, delivery.CallsOn(db.Customers(2, 3, 1)));
        Assert.Equal(1, delivery.CallsOn(db.District(2, 1)));

        var stockLevel = TpcCAccess.For(db, new StockLevelInput(1, 3, 15));
        Assert.Equal(1 + config.OrderPartitionsPerDistrict + config.StockPartitionsPerWarehouse, stockLevel.Accesses.Count);

        // By name and by id reach the same partitions for the same customer.
        var name = LastNames.Of(config, 1, 1, 4);
        Assert.Equal(
            TpcCAccess.For(db, new OrderStatusInput(1, 1, CustomerSelector.ById(4))).Accesses.Keys.Select(a => a.ToString()).Order(),
            TpcCAccess.For(db, new OrderStatusInput(1, 1, CustomerSelector.ByLastName(name))).Accesses.Keys.Select(a => a.ToString()).Order());
    }

    [Fact]
    public void The_config_rejects_sizes_it_cannot_hold_and_databases_do_not_collide()
    {
        Assert.Throws<ArgumentException>(() => new TpcCConfig { DistrictsPerWarehouse = 11 }.Validate());
        Assert.Throws<ArgumentException>(() => new TpcCConfig { Items = 5, StockPartitionsPerWarehouse = 6 }.Validate());
        Assert.Throws<ArgumentException>(() => new TpcCDatabase("a/b", new TpcCConfig()));

        var (a, b) = (new TpcCDatabase("a", TpcCSilo.Partitioned), new TpcCDatabase("b", TpcCSilo.Partitioned));
        Assert.Empty(a.AllActors().Intersect(b.AllActors()));
        Assert.Equal(a.AllActors().Count(), a.AllActors().Distinct().Count());
    }
}

using TpcC.Schema;

namespace TpcC.Loading;

/// <summary>
/// The initial database of TPC-C §4.3.3.1, one actor state at a time. Every row is drawn from its
/// own <see cref="Random"/> seeded by <see cref="Seeds"/>, so an actor fills its state without any
/// other actor's rows, in parallel with the others, and equal configs give equal databases. The
/// states are filled in place because <c>GetState</c> hands out the transaction's working copy.
/// </summary>
public static class RowGenerator
{
    /// <summary>W_YTD and D_YTD at load: a district's 30,000.00; a warehouse holds its districts' sum.</summary>
    public const decimal InitialDistrictYtd = 30_000m;

    /// <summary>Fills warehouse <paramref name="w"/>.</summary>
    public static void FillWarehouse(Warehouse target, TpcCConfig config, int w)
    {
        ArgumentNullException.ThrowIfNull(target);
        ArgumentNullException.ThrowIfNull(config);
        var random = new Random(Seeds.For(config.Seed, Seeds.Stream.Warehouse, w));
        target.Id = w;
        target.Name = RandomText.AString(random, 6, 10);
        target.Street1 = RandomText.AString(random, 10, 20);
        target.Street2 = RandomText.AString(random, 10, 20);
        target.City = RandomText.AString(random, 10, 20);
        target.State = RandomText.State(random);
        target.Zip = RandomText.Zip(random);
        target.Tax = RandomText.Rate(random, 0m, 0.2m);
        target.Ytd = InitialDistrictYtd * config.DistrictsPerWarehouse;
    }

    /// <summary>Fills district (w, d).</summary>
    public static void FillDistrict(District target, TpcCConfig config, int w, int d)
    {
        ArgumentNullException.ThrowIfNull(target);
        ArgumentNullException.ThrowIfNull(config);
        var random = new Random(Seeds.For(config.Seed, Seeds.Stream.District, w, d));
        target.Id = d;
        target.WarehouseId = w;
        target.Name = RandomText.AString(random, 6, 10);
        target.Street1 = RandomText.AString(random, 10, 20);
        target.Street2 = RandomText.AString(random, 10, 20);
        target.City = RandomText.AString(random, 10, 20);
        target.State = RandomText.State(random);
        target.Zip = RandomText.Zip(random);
        target.Tax = RandomText.Rate(random, 0m, 0.2m);
        target.Ytd = InitialDistrictYtd;
        target.NextOrderId = config.InitialOrdersPerDistrict + 1;
    }

    /// <summary>Fills customer partition <paramref name="partition"/> of district (w, d): its customers, one history row each.</summary>
    public static void FillCustomers(CustomerPartition target, TpcCDatabase db, int w, int d, int partition, DateTime now)
    {
        ArgumentNullException.ThrowIfNull(target);
        ArgumentNullException.ThrowIfNull(db);
        var config = db.Config;
        target.WarehouseId = w;
        target.DistrictId = d;
        target.Partition = partition;
        target.Customers = [];
        target.History = [];
        for (var c = 1; c <= config.CustomersPerDistrict; c++)
        {
            var last = LastNames.Of(config, w, d, c);
            if (db.CustomerPartitionOf(last) != partition)
            {
                continue;
            }

            var random = new Random(Seeds.For(config.Seed, Seeds.Stream.Customer, w, d, c));
            target.Customers.Add(c, new Customer
            {
                Id = c,
                DistrictId = d,
                WarehouseId = w,
                Last = last,
                Middle = "OE",
                First = RandomText.AString(random, 8, 16),
                Street1 = RandomText.AString(random, 10, 20),
                Street2 = RandomText.AString(random, 10, 20),
                City = RandomText.AString(random, 10, 20),
                State = RandomText.State(random),
                Zip = RandomText.Zip(random),
                Phone = RandomText.NString(random, 16),
                Since = now,
                Credit = random.Next(10) == 0 ? Customer.BadCredit : Customer.GoodCredit,
                CreditLimit = 50_000m,
                Discount = RandomText.Rate(random, 0m, 0.5m),
                Balance = -10m,
                YtdPayment = 10m,
                PaymentCount = 1,
                DeliveryCount = 0,
                Data = RandomText.AString(random, 300, 500),
            });
            target.History.Add(new HistoryRow
            {
                CustomerId = c,
                CustomerDistrictId = d,
                CustomerWarehouseId = w,
                DistrictId = d,
                WarehouseId = w,
                Date = now,
                Amount = 10m,
                Data = RandomText.AString(random, 12, 24),
            });
        }
    }

    /// <summary>
    /// Fills order partition <paramref name="partition"/> of district (w, d): the initial orders
    /// whose customer (a random permutation of the customers over the order ids) belongs here, their
    /// lines, and NEW-ORDER rows for the last 30% of the district's orders.
    /// </summary>
    public static void FillOrders(OrderPartition target, TpcCDatabase db, int w, int d, int partition, DateTime now)
    {
        ArgumentNullException.ThrowIfNull(target);
        ArgumentNullException.ThrowIfNull(db);
        var config = db.Config;
        target.WarehouseId = w;
        target.DistrictId = d;
        target.Partition = partition;
        target.Orders = [];
        target.NewOrders = [];
        target.LastOrderOfCustomer = [];
        var customers = OrderCustomers(config, w, d);
        for (var o = 1; o <= config.InitialOrdersPerDistrict; o++)
        {
            var c = customers[o - 1];
            if (db.OrderPartitionOf(w, d, c) != partition)
            {
                continue;
            }

            var random = new Random(Seeds.For(config.Seed, Seeds.Stream.Order, w, d, o));
            var delivered = o < config.FirstNewOrderId;
            var carrier = delivered ? random.Next(1, 11) : (int?)null;
            var lines = new OrderLine[random.Next(5, 16)];
            for (var number = 1; number <= lines.Length; number++)
            {
                lines[number - 1] = new OrderLine
                {
                    Number = number,
                    ItemId = random.Next(1, config.Items + 1),
                    SupplyWarehouseId = w,
                    DeliveryDate = delivered ? now : null,
                    Quantity = 5,
                    Amount = delivered ? 0m : RandomText.Money(random, 0.01m, 9_999.99m),
                    DistInfo = RandomText.AString(random, 24, 24),
                };
            }

            var order = new Order
            {
                Id = o,
                CustomerId = c,
                EntryDate = now,
                CarrierId = carrier,
                LineCount = lines.Length,
                AllLocal = true,
                Lines = lines,
            };
            target.Orders.Add(o, order);
            target.LastOrderOfCustomer[c] = o;
            if (!delivered)
            {
                target.NewOrders.Add(o);
            }
        }
    }

    /// <summary>Fills stock partition <paramref name="partition"/> of warehouse <paramref name="w"/>.</summary>
    public static void FillStock(StockPartition target, TpcCConfig config, int w, int partition)
    {
        ArgumentNullException.ThrowIfNull(target);
        ArgumentNullException.ThrowIfNull(config);
        target.WarehouseId = w;
        target.Partition = partition;
        target.Rows = [];
        for (var i = partition + 1; i <= config.Items; i += config.StockPartitionsPerWarehouse)
        {
            var random = new Random(Seeds.For(config.Seed, Seeds.Stream.Stock, w, i));
            var row = new Stock
            {
                ItemId = i,
                Quantity = random.Next(10, 101),
                Ytd = 0,
                OrderCount = 0,
                RemoteCount = 0,
                Dists = RandomText.AString(random, Stock.DistLength * TpcCConfig.SpecDistrictsPerWarehouse, Stock.DistLength * TpcCConfig.SpecDistrictsPerWarehouse),
                Data = RandomText.Data(random),
            };
            target.Rows.Add(i, row);
        }
    }

    /// <summary>Fills item partition <paramref name="partition"/>.</summary>
    public static void FillItems(ItemCatalogue target, TpcCConfig config, int partition)
    {
        ArgumentNullException.ThrowIfNull(target);
        ArgumentNullException.ThrowIfNull(config);
        target.Partition = partition;
        target.Items = [];
        for (var i = partition + 1; i <= config.Items; i += config.ItemPartitions)
        {
            var random = new Random(Seeds.For(config.Seed, Seeds.Stream.Item, i));
            target.Items.Add(i, new Item
            {
                Id = i,
                ImageId = random.Next(1, 10_001),
                Name = RandomText.AString(random, 14, 24),
                Price = RandomText.Money(random, 1m, 100m),
                Data = RandomText.Data(random),
            });
        }
    }

    /// <summary>O_C_ID of the initial orders 1..n of district (w, d): a random permutation of the customer ids (§4.3.3.1).</summary>
    public static int[] OrderCustomers(TpcCConfig config, int w, int d)
    {
        ArgumentNullException.ThrowIfNull(config);
        var customers = new int[config.InitialOrdersPerDistrict];
        for (var i = 0; i < customers.Length; i++)
        {
            customers[i] = i + 1;
        }

        new Random(Seeds.For(config.Seed, Seeds.Stream.OrderCustomers, w, d)).Shuffle(customers);
        return customers;
    }
}

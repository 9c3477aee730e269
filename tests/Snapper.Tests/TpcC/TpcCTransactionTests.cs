using System.Text.Json;
using TpcC.Loading;
using TpcC.Schema;
using TpcC.Transactions;

namespace Snapper.Tests.TpcC;

/// <summary>
/// Each TPC-C transaction's effect on a tiny loaded database, as an ACT and as a PACT (on separate
/// silos), with every table in one actor per district and cut into several.
/// </summary>
public sealed class TpcCTransactionTests
{
    private static readonly DateTime Now = new(2026, 1, 2, 3, 4, 5, DateTimeKind.Utc);

    public static TheoryData<string, bool> Modes => new()
    {
        { "act", false },
        { "act", true },
        { "pact", false },
        { "pact", true },
    };

    [Theory]
    [MemberData(nameof(Modes))]
    public async Task NewOrder_enters_the_order_and_takes_the_stock(string mode, bool partitioned)
    {
        await using var tpcc = await Start(mode, partitioned);
        var (w, d, c) = (1, 2, 5);
        var district = await tpcc.District(w, d);
        var warehouse = await tpcc.Warehouse(w);
        var customer = await tpcc.Customer(w, d, c);
        var stock3 = await tpcc.Stock(w, 3);
        var stock7 = await tpcc.Stock(w, 7);
        var (item3, item7) = (await tpcc.Item(3), await tpcc.Item(7));

        // Item 3 twice: the second line sees the stock the first one left.
        NewOrderLine[] lines = [new(3, w, 4), new(7, w, 2), new(3, w, 1)];
        var result = await tpcc.Client.NewOrder(new NewOrderInput(w, d, c, lines, Now), tpcc.Mode);

        Assert.Equal(district.NextOrderId, result.OrderId);
        Assert.Equal(district.NextOrderId + 1, (await tpcc.District(w, d)).NextOrderId);
        var sum = (4 * item3.Price) + (2 * item7.Price) + (1 * item3.Price);
        Assert.Equal(decimal.Round(sum * (1 - customer.Discount) * (1 + warehouse.Tax + district.Tax), 2), result.Total);
        Assert.Equal(customer.Last, result.CustomerLast);

        var partition = await tpcc.OrderPartition(w, d, tpcc.Db.OrderPartitionOf(w, d, c));
        var order = partition.Orders[result.OrderId];
        Assert.Equal(c, order.CustomerId);
        Assert.Null(order.CarrierId);
        Assert.True(order.AllLocal);
        Assert.Equal(3, order.LineCount);
        Assert.Equal([3, 7, 3], order.Lines.Select(l => l.ItemId));
        Assert.Equal([1, 2, 3], order.Lines.Select(l => l.Number));
        Assert.All(order.Lines, l => Assert.Null(l.DeliveryDate));
        Assert.Equal(stock7.DistFor(d), order.Lines[1].DistInfo);
        Assert.Equal(result.OrderId, partition.NewOrders[^1]);
        Assert.Equal(result.OrderId, partition.LastOrderOfCustomer[c]);

        var after3 = await tpcc.Stock(w, 3);
        Assert.Equal(Taken(Taken(stock3.Quantity, 4), 1), after3.Quantity);
        Assert.Equal(5, after3.Ytd);
        Assert.Equal(2, after3.OrderCount);
        Assert.Equal(0, after3.RemoteCount);
        Assert.Equal(Taken(stock7.Quantity, 2), (await tpcc.Stock(w, 7)).Quantity);
        Assert.Equal(after3.Quantity, result.Lines[2].StockQuantity);
    }

    [Theory]
    [MemberData(nameof(Modes))]
    public async Task NewOrder_with_a_remote_supply_warehouse_counts_a_remote_order(string mode, bool partitioned)
    {
        await using var tpcc = await Start(mode, partitioned);
        var remoteBefore = await tpcc.Stock(2, 11);
        var homeBefore = await tpcc.Stock(1, 11);

        var result = await tpcc.Client.NewOrder(new NewOrderInput(1, 1, 1, [new(11, 2, 3), new(12, 1, 1)], Now), tpcc.Mode);

        var remote = await tpcc.Stock(2, 11);
        Assert.Equal(remoteBefore.RemoteCount + 1, remote.RemoteCount);
        Assert.Equal(remoteBefore.Ytd + 3, remote.Ytd);
        Assert.Equal(homeBefore.Quantity, (await tpcc.Stock(1, 11)).Quantity);
        var order = (await tpcc.OrderPartition(1, 1, tpcc.Db.OrderPartitionOf(1, 1, 1))).Orders[result.OrderId];
        Assert.False(order.AllLocal);
        Assert.Equal(2, order.Lines[0].SupplyWarehouseId);
        Assert.Equal(remoteBefore.DistFor(1), order.Lines[0].DistInfo);
    }

    [Theory]
    [MemberData(nameof(Modes))]
    public async Task NewOrder_with_an_unused_item_is_rolled_back_without_a_trace(string mode, bool partitioned)
    {
        await using var tpcc = await Start(mode, partitioned);
        var before = await Snapshot(tpcc, 1);
        var invalid = tpcc.Db.Config.Items + 1;

        var aborted = await Assert.ThrowsAsync<TransactionAbortedException>(() =>
            tpcc.Client.NewOrder(new NewOrderInput(1, 2, 3, [new(5, 1, 2), new(9, 1, 1), new(invalid, 1, 1)], Now), tpcc.Mode));

        Assert.Equal(AbortReason.User, aborted.Reason);
        Assert.Contains("Item number is not valid", aborted.Message, StringComparison.Ordinal);
        Assert.Equal(before, await Snapshot(tpcc, 1));

        // The district hands out the id the rolled-back order would have had.
        var expected = (await tpcc.District(1, 2)).NextOrderId;
        var next = await tpcc.Client.NewOrder(new NewOrderInput(1, 2, 3, [new(5, 1, 2)], Now), tpcc.Mode);
        Assert.Equal(expected, next.OrderId);
    }

    [Theory]
    [MemberData(nameof(Modes))]
    public async Task Payment_by_id_of_a_remote_customer_moves_the_amount_and_writes_history(string mode, bool partitioned)
    {
        await using var tpcc = await Start(mode, partitioned);
        var (w, d, cw, cd, c) = (1, 1, 2, 3, 4);
        var warehouse = await tpcc.Warehouse(w);
        var district = await tpcc.District(w, d);
        var customer = await tpcc.Customer(cw, cd, c);
        var history = (await tpcc.CustomerPartition(cw, cd, tpcc.Db.CustomerPartitionOf(cw, cd, c))).History.Count;

        var result = await tpcc.Client.Payment(new PaymentInput(w, d, cw, cd, CustomerSelector.ById(c), 123.45m, Now), tpcc.Mode);

        Assert.Equal(warehouse.Ytd + 123.45m, (await tpcc.Warehouse(w)).Ytd);
        Assert.Equal(district.Ytd + 123.45m, (await tpcc.District(w, d)).Ytd);
        Assert.Equal(RowGenerator.InitialDistrictYtd, (await tpcc.District(w, 2)).Ytd);
        var paid = await tpcc.Customer(cw, cd, c);
        Assert.Equal(customer.Balance - 123.45m, paid.Balance);
        Assert.Equal(customer.YtdPayment + 123.45m, paid.YtdPayment);
        Assert.Equal(customer.PaymentCount + 1, paid.PaymentCount);
        Assert.Equal(paid.Balance, result.Customer.Balance);
        Assert.Equal(warehouse.Street1, result.WarehouseAddress.Street1);

        var partition = await tpcc.CustomerPartition(cw, cd, tpcc.Db.CustomerPartitionOf(cw, cd, c));
        Assert.Equal(history + 1, partition.History.Count);
        var row = partition.History[^1];
        Assert.Equal((c, cd, cw, d, w, 123.45m, Now), (row.CustomerId, row.CustomerDistrictId, row.CustomerWarehouseId, row.DistrictId, row.WarehouseId, row.Amount, row.Date));
        Assert.Equal(warehouse.Name + "    " + district.Name, row.Data);
    }

    [Theory]
    [MemberData(nameof(Modes))]
    public async Task Payment_by_last_name_pays_that_customer_and_a_bad_credit_customer_gets_CData(string mode, bool partitioned)
    {
        await using var tpcc = await Start(mode, partitioned);

        // A bad-credit customer of district (1, 1), paid by name (names are unique among 10 customers).
        var customers = new List<Customer>();
        for (var p = 0; p < tpcc.Db.Config.CustomerPartitionsPerDistrict; p++)
        {
            customers.AddRange((await tpcc.CustomerPartition(1, 1, p)).Customers.Values);
        }

        var bad = customers.FirstOrDefault(c => c.Credit == Customer.BadCredit) ?? customers[0];
        var result = await tpcc.Client.Payment(new PaymentInput(1, 1, 1, 1, CustomerSelector.ByLastName(bad.Last), 10m, Now), tpcc.Mode);

        Assert.Equal(bad.Id, result.Customer.Id);
        var paid = await tpcc.Customer(1, 1, bad.Id);
        Assert.Equal(bad.Balance - 10m, paid.Balance);
        if (bad.Credit == Customer.BadCredit)
        {
            Assert.StartsWith($"{bad.Id} 1 1 1 1 10.00|", paid.Data, StringComparison.Ordinal);
            Assert.True(paid.Data.Length <= Customer.MaxDataLength);
            Assert.Equal(paid.Data[..Math.Min(200, paid.Data.Length)], result.Customer.Data);
        }
        else
        {
            Assert.Equal(bad.Data, paid.Data);
            Assert.Null(result.Customer.Data);
        }
    }

    [Theory]
    [MemberData(nameof(Modes))]
    public async Task OrderStatus_shows_the_customers_latest_order_by_id_and_by_name(string mode, bool partitioned)
    {
        await using var tpcc = await Start(mode, partitioned);
        var customer = await tpcc.Customer(1, 3, 6);
        var entered = await tpcc.Client.NewOrder(new NewOrderInput(1, 3, 6, [new(20, 1, 7), new(21, 1, 1)], Now), tpcc.Mode);

        var byId = await tpcc.Client.OrderStatus(new OrderStatusInput(1, 3, CustomerSelector.ById(6)), tpcc.Mode);
        var byName = await tpcc.Client.OrderStatus(new OrderStatusInput(1, 3, CustomerSelector.ByLastName(customer.Last)), tpcc.Mode);

        foreach (var status in new[] { byId, byName })
        {
            Assert.Equal(6, status.Customer.Id);
            Assert.Equal(customer.Balance, status.Customer.Balance);
            Assert.NotNull(status.LastOrder);
            Assert.Equal(entered.OrderId, status.LastOrder.OrderId);
            Assert.Null(status.LastOrder.CarrierId);
            Assert.Equal([(20, 7), (21, 1)], status.LastOrder.Lines.Select(l => (l.ItemId, l.Quantity)));
        }
    }

    [Theory]
    [MemberData(nameof(Modes))]
    public async Task Delivery_delivers_the_oldest_new_order_of_each_district_until_none_is_left(string mode, bool partitioned)
    {
        await using var tpcc = await Start(mode, partitioned);
        var config = tpcc.Db.Config;
        for (var round = 0; round < config.InitialNewOrdersPerDistrict; round++)
        {
            var expectedId = config.FirstNewOrderId + round;
            var expected = new Dictionary<int, (int Customer, decimal Amount, Customer Before)>();
            for (var d = 1; d <= config.DistrictsPerWarehouse; d++)
            {
                var order = (await tpcc.OrderPartitions(1, d)).Select(p => p.Orders.GetValueOrDefault(expectedId)).Single(o => o is not null)!;
                expected[d] = (order.CustomerId, order.Lines.Sum(l => l.Amount), await tpcc.Customer(1, d, order.CustomerId));
            }

            var result = await tpcc.Client.Delivery(new DeliveryInput(1, 7, Now), tpcc.Mode);

            Assert.Empty(result.SkippedDistricts);
            Assert.Equal(Enumerable.Range(1, config.DistrictsPerWarehouse), result.Delivered.Select(o => o.DistrictId));
            foreach (var delivered in result.Delivered)
            {
                var (customerId, amount, before) = expected[delivered.DistrictId];
                Assert.Equal((expectedId, customerId, amount), (delivered.OrderId, delivered.CustomerId, delivered.Amount));
                var partitions = await tpcc.OrderPartitions(1, delivered.DistrictId);
                Assert.DoesNotContain(partitions, p => p.NewOrders.Contains(expectedId));
                var order = partitions.Select(p => p.Orders.GetValueOrDefault(expectedId)).Single(o => o is not null)!;
                Assert.Equal(7, order.CarrierId);
                Assert.All(order.Lines, l => Assert.Equal(Now, l.DeliveryDate));
                var after = await tpcc.Customer(1, delivered.DistrictId, customerId);
                Assert.Equal(before.Balance + amount, after.Balance);
                Assert.Equal(before.DeliveryCount + 1, after.DeliveryCount);
            }
        }

        var none = await tpcc.Client.Delivery(new DeliveryInput(1, 3, Now), tpcc.Mode);
        Assert.Empty(none.Delivered);
        Assert.Equal(Enumerable.Range(1, config.DistrictsPerWarehouse), none.SkippedDistricts);

        // Warehouse 2 was not touched.
        var other = await tpcc.OrderPartitions(2, 1);
        Assert.Equal(config.InitialNewOrdersPerDistrict, other.Sum(p => p.NewOrders.Count));
    }

    [Theory]
    [MemberData(nameof(Modes))]
    public async Task StockLevel_counts_the_distinct_low_stock_items_of_the_last_20_orders(string mode, bool partitioned)
    {
        await using var tpcc = await Start(mode, partitioned);

        // Two new orders of the same district make items 1 and 2 lower than anything else.
        await tpcc.Client.NewOrder(new NewOrderInput(1, 2, 1, [new(1, 1, 10), new(2, 1, 10)], Now), tpcc.Mode);
        await tpcc.Client.NewOrder(new NewOrderInput(1, 2, 2, [new(1, 1, 10), new(3, 1, 1)], Now), tpcc.Mode);

        var next = (await tpcc.District(1, 2)).NextOrderId;
        var items = (await tpcc.OrderPartitions(1, 2))
            .SelectMany(p => p.Orders.Values)
            .Where(o => o.Id >= next - 20 && o.Id < next)
            .SelectMany(o => o.Lines.Select(l => l.ItemId))
            .Distinct()
            .ToList();
        var quantities = new List<int>();
        foreach (var item in items)
        {
            quantities.Add((await tpcc.Stock(1, item)).Quantity);
        }

        var threshold = quantities.Order().ElementAt(quantities.Count / 2);
        var expected = quantities.Count(q => q < threshold);
        Assert.InRange(expected, 1, quantities.Count - 1);

        var result = await tpcc.Client.StockLevel(new StockLevelInput(1, 2, threshold), tpcc.Mode);

        Assert.Equal(expected, result.LowStock);
        Assert.Equal(0, (await tpcc.Client.StockLevel(new StockLevelInput(1, 2, 0), tpcc.Mode)).LowStock);
    }

    private static Task<TpcCSilo> Start(string mode, bool partitioned) =>
        TpcCSilo.StartAsync(mode, partitioned ? TpcCSilo.Partitioned : TpcCSilo.Unpartitioned);

    // §2.4.2.2: take the quantity, or restock by 91 when fewer than 10 would be left.
    private static int Taken(int quantity, int ordered) => quantity >= ordered + 10 ? quantity - ordered : quantity - ordered + 91;

    // Every row a NewOrder of warehouse w could touch, as JSON.
    private static async Task<string> Snapshot(TpcCSilo tpcc, int w)
    {
        var config = tpcc.Db.Config;
        var parts = new List<object> { await tpcc.Warehouse(w) };
        for (var d = 1; d <= config.DistrictsPerWarehouse; d++)
        {
            parts.Add(await tpcc.District(w, d));
            parts.AddRange(await tpcc.OrderPartitions(w, d));
            for (var p = 0; p < config.CustomerPartitionsPerDistrict; p++)
            {
                parts.Add(await tpcc.CustomerPartition(w, d, p));
            }
        }

        for (var s = 0; s < config.StockPartitionsPerWarehouse; s++)
        {
            parts.Add(await tpcc.StockPartition(w, s));
        }

        return JsonSerializer.Serialize(parts);
    }
}

using System.Text.Json;
using System.Text.Json.Nodes;
using Microsoft.Extensions.DependencyInjection;
using Orleans.Serialization;
using Snapper.Checkpointing;
using Snapper.Configuration;
using Snapper.Logging;
using Snapper.Recovery;
using Snapper.Serialization;
using Snapper.Tests.Recovery;
using TpcC;
using TpcC.Consistency;
using TpcC.Generation;
using TpcC.Loading;
using TpcC.Schema;

namespace Snapper.Tests.TpcC;

/// <summary>
/// TPC-C's growing partitions (stock, customers with their history, orders) are logged as the rows
/// a transaction changed (<see cref="IDeltaState{TSelf, TDelta}"/> over immutable rows), and a
/// restart rebuilds every one of them exactly from a whole state and the deltas after it.
/// </summary>
public sealed class TpcCDeltaStateTests : IDisposable
{
    private static readonly TpcCConfig Config = TpcCSilo.Partitioned with { CustomersPerDistrict = 30 };

    private readonly string directory = Path.Combine(Path.GetTempPath(), $"snapper-tpcc-delta-{Guid.NewGuid():N}");

    [Fact]
    public async Task A_hybrid_mix_logged_as_row_deltas_comes_back_whole_after_a_checkpoint_and_a_restart()
    {
        void FileLogging(SnapperOptions o)
        {
            o.Logging = LoggingMode.File;
            o.LogDirectory = directory;
            o.CheckpointInterval = TimeSpan.Zero; // the round runs when the test says
        }

        Dictionary<string, string> before;
        List<LogRecord> records;
        await using (var first = await TpcCSilo.StartAsync("hybrid", Config, FileLogging))
        {
            var generator = new TpcCInputGenerator(Config);
            var random = new Random(36);
            for (var phase = 0; phase < 2; phase++)
            {
                var inputs = Enumerable.Range(0, 150).Select(_ => (Input: generator.Next(random), Mode: random.Next(3) == 0 ? TxnMode.Act : TxnMode.Pact)).ToArray();
                await Parallel.ForEachAsync(inputs, new ParallelOptions { MaxDegreeOfParallelism = 8 }, async (item, _) =>
                {
                    for (var attempt = 1; attempt <= 20; attempt++)
                    {
                        try
                        {
                            await first.Client.Run(item.Input, item.Mode);
                            return;
                        }
                        catch (TransactionAbortedException e) when (e.Reason != AbortReason.User)
                        {
                            await Task.Delay(Random.Shared.Next(1, 10));
                        }
                        catch (TransactionAbortedException)
                        {
                            return; // a NewOrder naming an unused item rolls back
                        }
                    }
                });
                if (phase == 0)
                {
                    await first.Silo.Grains.GetGrain<ICheckpointer>(0).Run();
                }
            }

            before = await ReadAll(first);
            var storage = first.Silo.Services.GetRequiredService<ILogStorage>();
            records = [.. (await LogRecovery.ReadAllAsync(storage, CancellationToken.None)).SelectMany(l => l.Records)];
        }

        // Each growing partition type wrote mostly deltas; its first write in an activation is whole.
        foreach (var type in new[] { "TpcC.Actors.IStockActor", "TpcC.Actors.ICustomerActor", "TpcC.Actors.IOrderActor" })
        {
            var forms = records.Select(r => DeltaStateTests.StateForm(r, type)).OfType<bool>().GroupBy(delta => delta).ToDictionary(g => g.Key, g => g.Count());
            Assert.True(
                forms.GetValueOrDefault(true) > forms.GetValueOrDefault(false),
                $"{type}: {forms.GetValueOrDefault(true)} delta(s) against {forms.GetValueOrDefault(false)} whole state(s) in the log");
        }

        await using var second = await TpcCSilo.StartAsync("hybrid", Config, FileLogging, load: false);
        var after = await ReadAll(second);
        Assert.Equal(before.Keys, after.Keys);
        Assert.All(before, state => Assert.Equal(state.Value, after[state.Key]));
        var check = await TpcCConsistency.CheckAsync(second.Client, second.Mode);
        Assert.True(check.Ok, check.ToString());
    }

    [Fact]
    public void An_Orleans_copy_shares_every_row_and_a_delta_holds_only_the_changed_rows_through_either_serializer()
    {
        using var services = new ServiceCollection().AddSerializer(s => s.AddAssembly(typeof(StockPartition).Assembly)).BuildServiceProvider();
        var orleans = new OrleansStateSerializer(services.GetRequiredService<Serializer>(), services.GetRequiredService<DeepCopier>());
        var db = new TpcCDatabase("unit", Config);
        var now = new DateTime(2026, 11, 27, 0, 0, 0, DateTimeKind.Utc);
        var stock = new StockPartition();
        RowGenerator.FillStock(stock, Config, 1, 0);
        var customers = new CustomerPartition();
        RowGenerator.FillCustomers(customers, db, 1, 1, 0, now);
        var orders = new OrderPartition();
        RowGenerator.FillOrders(orders, db, 1, 1, 0, now);

        foreach (var serializer in new IStateSerializer[] { orleans, new JsonStateSerializer() })
        {
            // Stock: NewOrder replaces one row.
            var stockAfter = serializer.Copy(stock);
            var item = stock.Rows.Keys.First();
            stockAfter.Rows[item] = stockAfter.Rows[item] with { Quantity = 7, OrderCount = 1 };
            var stockDelta = RoundTrip(serializer, stockAfter.DeltaFrom(stock));
            AssertRebuilt(serializer, stock, stockAfter, stockDelta);

            // Customers: Payment replaces one customer and inserts a history row.
            var customersAfter = serializer.Copy(customers);
            var customer = customers.Customers.Values.First();
            customersAfter.Customers[customer.Id] = customer with { Balance = customer.Balance - 5m, PaymentCount = customer.PaymentCount + 1 };
            customersAfter.History.Add(new HistoryRow { CustomerId = customer.Id, Amount = 5m, Date = now, Data = "paid" });
            var customersDelta = RoundTrip(serializer, customersAfter.DeltaFrom(customers));
            Assert.Single(customersDelta.HistoryInserted);
            AssertRebuilt(serializer, customers, customersAfter, customersDelta);

            // Orders: NewOrder inserts one, Delivery delivers the oldest undelivered.
            var ordersAfter = serializer.Copy(orders);
            var oldest = ordersAfter.Orders[ordersAfter.NewOrders[0]];
            ordersAfter.Orders[oldest.Id] = oldest with { CarrierId = 3, Lines = [.. oldest.Lines.Select(l => l with { DeliveryDate = now })] };
            ordersAfter.NewOrders.RemoveAt(0);
            var inserted = new Order { Id = 1_000, CustomerId = 1, EntryDate = now, LineCount = 1, Lines = [new OrderLine { Number = 1, ItemId = 1, Quantity = 2 }] };
            ordersAfter.Orders.Add(inserted.Id, inserted);
            ordersAfter.NewOrders.Add(inserted.Id);
            ordersAfter.LastOrderOfCustomer[1] = inserted.Id;
            var ordersDelta = RoundTrip(serializer, ordersAfter.DeltaFrom(orders));
            AssertRebuilt(serializer, orders, ordersAfter, ordersDelta);

            if (serializer == orleans)
            {
                // Orleans' copier does not copy an [Immutable] row, so what changed is what is no longer the same object.
                Assert.Same(stock.Rows[item], serializer.Copy(stock).Rows[item]);
                Assert.Same(orders.Orders[oldest.Id], serializer.Copy(orders).Orders[oldest.Id]);
                Assert.Same(customers.History[0], serializer.Copy(customers).History[0]);
                Assert.Single(stockDelta.Rows.Set);
                Assert.Single(customersDelta.Customers.Set);
                Assert.Equal([oldest.Id, inserted.Id], ordersDelta.Orders.Set.Select(r => r.Key).Order());
                Assert.Single(ordersDelta.LastOrderOfCustomer.Set);
            }
        }
    }

    public void Dispose()
    {
        if (Directory.Exists(directory))
        {
            Directory.Delete(directory, recursive: true);
        }
    }

    private static T RoundTrip<T>(IStateSerializer serializer, T delta) => serializer.Deserialize<T>(serializer.Serialize(delta));

    // A copy of before with the delta applied is after, compared as canonical JSON.
    private static void AssertRebuilt<TState, TDelta>(IStateSerializer serializer, TState before, TState after, TDelta delta)
        where TState : class, IDeltaState<TState, TDelta>
    {
        var rebuilt = serializer.Copy(before);
        rebuilt.Apply(delta);
        Assert.Equal(Canonical(after), Canonical(rebuilt));
        Assert.NotEqual(Canonical(before), Canonical(rebuilt));
    }

    // Every actor's state as JSON with object members sorted, so dictionaries compare whatever their order.
    private static async Task<Dictionary<string, string>> ReadAll(TpcCSilo tpcc)
    {
        var states = new Dictionary<string, string>();
        for (var w = 1; w <= Config.Warehouses; w++)
        {
            states[$"warehouse {w}"] = Canonical(await tpcc.Warehouse(w));
            for (var s = 0; s < Config.StockPartitionsPerWarehouse; s++)
            {
                states[$"stock {w}/{s}"] = Canonical(await tpcc.StockPartition(w, s));
            }

            for (var d = 1; d <= Config.DistrictsPerWarehouse; d++)
            {
                states[$"district {w}/{d}"] = Canonical(await tpcc.District(w, d));
                for (var p = 0; p < Config.CustomerPartitionsPerDistrict; p++)
                {
                    states[$"customers {w}/{d}/{p}"] = Canonical(await tpcc.CustomerPartition(w, d, p));
                }

                for (var p = 0; p < Config.OrderPartitionsPerDistrict; p++)
                {
                    states[$"orders {w}/{d}/{p}"] = Canonical(await tpcc.OrderPartition(w, d, p));
                }
            }
        }

        return states;
    }

    private static string Canonical<T>(T state) => Sorted(JsonSerializer.SerializeToNode(state))?.ToJsonString() ?? "null";

    private static JsonNode? Sorted(JsonNode? node) => node switch
    {
        JsonObject o => new JsonObject(o.OrderBy(p => p.Key, StringComparer.Ordinal).Select(p => KeyValuePair.Create(p.Key, Sorted(p.Value?.DeepClone())))),
        JsonArray a => new JsonArray([.. a.Select(e => Sorted(e?.DeepClone()))]),
        _ => node?.DeepClone(),
    };
}

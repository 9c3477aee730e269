using Snapper;
using TpcC.Messages;
using TpcC.Transactions;

namespace TpcC.Actors;

/// <summary>NewOrder (TPC-C §2.4.2).</summary>
public sealed partial class DistrictActor
{
    /// <inheritdoc />
    public async Task<NewOrderResult> NewOrder(TxnContext ctx, TpcCDatabase db, NewOrderInput input)
    {
        ArgumentNullException.ThrowIfNull(db);
        ArgumentNullException.ThrowIfNull(input);
        var (w, d, c) = (input.WarehouseId, input.DistrictId, input.CustomerId);

        // Items first, one call per item partition: an unused item id rolls the whole order back
        // (§2.4.2.3) before anything is written, and an ACT has then locked nothing it must write.
        var items = await FindItems(ctx, db, input.Lines);
        foreach (var line in input.Lines)
        {
            if (!items.ContainsKey(line.ItemId))
            {
                throw new TransactionAbortedException(AbortReason.User, $"Item number is not valid: {line.ItemId} (NewOrder of customer {w}/{d}/{c} rolled back)");
            }
        }

        var district = await LoadedState(ctx, AccessMode.ReadWrite);
        var orderId = district.NextOrderId;
        district.NextOrderId = orderId + 1;

        // The three calls run at once, but all must have finished before this method returns or
        // throws: a call still under way when the transaction aborts would join its actor (lock,
        // place in the schedule) after the abort was sent, and keep it for good. Awaiting them one
        // by one would throw on the first failure and leave the others running.
        var credit = CallActor<ICustomerActor, CustomerCredit>(ctx, db.Customers(w, d, db.CustomerPartitionOf(w, d, c)), a => a.Credit(ctx, c));
        var warehouseTax = CallActor<IWarehouseActor, decimal>(ctx, db.Warehouse(w), a => a.Tax(ctx));
        var stock = TakeStock(ctx, db, input);
        await Task.WhenAll(credit, warehouseTax, stock);
        var customer = await credit;
        var taken = await stock;
        var tax = await warehouseTax;

        var lines = new OrderLineToInsert[input.Lines.Count];
        var results = new NewOrderLineResult[input.Lines.Count];
        var sum = 0m;
        for (var i = 0; i < lines.Length; i++)
        {
            var line = input.Lines[i];
            var item = items[line.ItemId];
            var amount = line.Quantity * item.Price;
            sum += amount;
            lines[i] = new OrderLineToInsert(line.ItemId, line.SupplyWarehouseId, line.Quantity, amount, taken[i].DistInfo);
            var brand = item.Original && taken[i].Original ? 'B' : 'G';
            results[i] = new NewOrderLineResult(line.SupplyWarehouseId, line.ItemId, item.Name, line.Quantity, taken[i].QuantityLeft, brand, item.Price, amount);
        }

        await CallActor<IOrderActor>(ctx, db.Orders(w, d, db.OrderPartitionOf(w, d, c)), a => a.Insert(ctx, new OrderToInsert(orderId, c, input.EntryDate, input.AllLocal, lines)));

        var total = decimal.Round(sum * (1 - customer.Discount) * (1 + tax + district.Tax), 2);
        return new NewOrderResult(w, d, c, customer.Last, customer.Credit, customer.Discount, orderId, input.EntryDate, tax, district.Tax, total, results);
    }

    private async Task<Dictionary<int, ItemInfo>> FindItems(TxnContext ctx, TpcCDatabase db, IReadOnlyList<NewOrderLine> lines)
    {
        var byPartition = new Dictionary<int, List<int>>();
        foreach (var line in lines)
        {
            var partition = db.ItemPartitionOf(line.ItemId);
            if (!byPartition.TryGetValue(partition, out var ids))
            {
                byPartition[partition] = ids = [];
            }

            if (!ids.Contains(line.ItemId))
            {
                ids.Add(line.ItemId);
            }
        }

        var found = await Task.WhenAll(byPartition.Select(p => CallActor<IItemActor, ItemInfo?[]>(ctx, db.Items(p.Key), a => a.Find(ctx, p.Value))));
        var items = new Dictionary<int, ItemInfo>();
        foreach (var item in found.SelectMany(f => f))
        {
            if (item is not null)
            {
                items[item.ItemId] = item;
            }
        }

        return items;
    }

    // One call per stock actor, with that actor's lines in order; the answers back in line order.
    private async Task<StockTaken[]> TakeStock(TxnContext ctx, TpcCDatabase db, NewOrderInput input)
    {
        var byActor = new Dictionary<ActorId, List<int>>();
        for (var i = 0; i < input.Lines.Count; i++)
        {
            var line = input.Lines[i];
            var actor = db.Stock(line.SupplyWarehouseId, db.StockPartitionOf(line.ItemId));
            if (!byActor.TryGetValue(actor, out var indexes))
            {
                byActor[actor] = indexes = [];
            }

            indexes.Add(i);
        }

        var taken = new StockTaken[input.Lines.Count];
        await Task.WhenAll(byActor.Select(async group =>
        {
            var requests = group.Value.Select(i => input.Lines[i]).Select(l => new StockRequest(l.ItemId, l.Quantity, l.SupplyWarehouseId != input.WarehouseId)).ToArray();
            var answers = await CallActor<IStockActor, StockTaken[]>(ctx, group.Key, a => a.Take(ctx, input.DistrictId, requests));
            for (var k = 0; k < answers.Length; k++)
            {
                taken[group.Value[k]] = answers[k];
            }
        }));
        return taken;
    }
}

using Snapper;
using TpcC.Transactions;

namespace TpcC.Client;

/// <summary>
/// PACT declarations (Snapper §3.1, actorAccessInfo) computed from a transaction's input: every
/// actor the transaction calls, with the exact number of calls, the root's own call included.
/// They mirror the call patterns of <see cref="Actors.DistrictActor"/> and
/// <see cref="Actors.CustomerActor"/>; a mismatch aborts the PACT with <see cref="AbortReason.DeclarationError"/>.
/// </summary>
public static class TpcCAccess
{
    /// <summary>The declaration of <paramref name="input"/>'s transaction.</summary>
    public static AccessSet For(TpcCDatabase db, TpcCInput input) => input switch
    {
        NewOrderInput newOrder => For(db, newOrder),
        PaymentInput payment => For(db, payment),
        OrderStatusInput orderStatus => For(db, orderStatus),
        DeliveryInput delivery => For(db, delivery),
        StockLevelInput stockLevel => For(db, stockLevel),
        _ => throw new ArgumentOutOfRangeException(nameof(input), input, "Unknown TPC-C input."),
    };

    /// <summary>
    /// NewOrder: its district (root), warehouse, customer partition and order partition once each;
    /// each item partition and each stock actor its lines reach once (one call carries all their lines).
    /// </summary>
    public static AccessSet For(TpcCDatabase db, NewOrderInput input)
    {
        ArgumentNullException.ThrowIfNull(db);
        ArgumentNullException.ThrowIfNull(input);
        var (w, d, c) = (input.WarehouseId, input.DistrictId, input.CustomerId);
        var actors = new HashSet<ActorId>
        {
            db.Warehouse(w),
            db.Customers(w, d, db.CustomerPartitionOf(w, d, c)),
            db.Orders(w, d, db.OrderPartitionOf(w, d, c)),
        };
        foreach (var line in input.Lines)
        {
            actors.Add(db.Items(db.ItemPartitionOf(line.ItemId)));
            actors.Add(db.Stock(line.SupplyWarehouseId, db.StockPartitionOf(line.ItemId)));
        }

        return actors.Aggregate(AccessSet.Of(db.District(w, d)), (set, actor) => set.And(actor));
    }

    /// <summary>Payment: its district (root), the warehouse and the customer's partition, once each.</summary>
    public static AccessSet For(TpcCDatabase db, PaymentInput input)
    {
        ArgumentNullException.ThrowIfNull(db);
        ArgumentNullException.ThrowIfNull(input);
        var (cw, cd) = (input.CustomerWarehouseId, input.CustomerDistrictId);
        return AccessSet.Of(db.District(input.WarehouseId, input.DistrictId))
            .And(db.Warehouse(input.WarehouseId))
            .And(db.Customers(cw, cd, db.CustomerPartitionOf(cw, cd, input.Customer)));
    }

    /// <summary>OrderStatus: the customer's partition (root) and its order partition, once each.</summary>
    public static AccessSet For(TpcCDatabase db, OrderStatusInput input)
    {
        ArgumentNullException.ThrowIfNull(db);
        ArgumentNullException.ThrowIfNull(input);
        var (w, d) = (input.WarehouseId, input.DistrictId);
        return AccessSet.Of(db.Customers(w, d, db.CustomerPartitionOf(w, d, input.Customer)))
            .And(db.Orders(w, d, db.OrderPartitionOf(w, d, input.Customer)));
    }

    /// <summary>
    /// Delivery: district 1 (root); every order partition of the warehouse once, or twice (look,
    /// then deliver or not) when districts have several; every customer partition once.
    /// </summary>
    public static AccessSet For(TpcCDatabase db, DeliveryInput input)
    {
        ArgumentNullException.ThrowIfNull(db);
        ArgumentNullException.ThrowIfNull(input);
        var w = input.WarehouseId;
        var config = db.Config;
        var orderCalls = config.OrderPartitionsPerDistrict == 1 ? 1 : 2;
        var set = AccessSet.Of(RootOf(db, input));
        for (var d = 1; d <= config.DistrictsPerWarehouse; d++)
        {
            for (var p = 0; p < config.OrderPartitionsPerDistrict; p++)
            {
                set = set.And(db.Orders(w, d, p), orderCalls);
            }

            for (var p = 0; p < config.CustomerPartitionsPerDistrict; p++)
            {
                set = set.And(db.Customers(w, d, p));
            }
        }

        return set;
    }

    /// <summary>StockLevel: its district (root), every order partition of the district and every stock actor of the warehouse, once each.</summary>
    public static AccessSet For(TpcCDatabase db, StockLevelInput input)
    {
        ArgumentNullException.ThrowIfNull(db);
        ArgumentNullException.ThrowIfNull(input);
        var (w, d) = (input.WarehouseId, input.DistrictId);
        var set = AccessSet.Of(db.District(w, d));
        for (var p = 0; p < db.Config.OrderPartitionsPerDistrict; p++)
        {
            set = set.And(db.Orders(w, d, p));
        }

        for (var s = 0; s < db.Config.StockPartitionsPerWarehouse; s++)
        {
            set = set.And(db.Stock(w, s));
        }

        return set;
    }

    /// <summary>The first actor of <paramref name="input"/>'s transaction, which runs it and coordinates its commit.</summary>
    public static ActorId RootOf(TpcCDatabase db, TpcCInput input)
    {
        ArgumentNullException.ThrowIfNull(db);
        ArgumentNullException.ThrowIfNull(input);
        return input switch
        {
            NewOrderInput i => db.District(i.WarehouseId, i.DistrictId),
            PaymentInput i => db.District(i.WarehouseId, i.DistrictId),
            OrderStatusInput i => db.Customers(i.WarehouseId, i.DistrictId, db.CustomerPartitionOf(i.WarehouseId, i.DistrictId, i.Customer)),
            DeliveryInput i => db.District(i.WarehouseId, 1),
            StockLevelInput i => db.District(i.WarehouseId, i.DistrictId),
            _ => throw new ArgumentOutOfRangeException(nameof(input), input, "Unknown TPC-C input."),
        };
    }
}

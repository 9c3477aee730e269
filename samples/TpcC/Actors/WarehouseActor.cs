using Snapper;
using TpcC.Loading;
using TpcC.Messages;
using TpcC.Schema;
using TpcC.Transactions;

namespace TpcC.Actors;

/// <summary>The warehouse actor. Every Payment of the warehouse writes it, so it is the warehouse's hot spot.</summary>
public sealed class WarehouseActor : TransactionalActor<Warehouse>, IWarehouseActor
{
    /// <inheritdoc />
    public async Task Load(TxnContext ctx, TpcCDatabase db, int w)
    {
        ArgumentNullException.ThrowIfNull(db);
        RowGenerator.FillWarehouse(await GetState(ctx, AccessMode.ReadWrite), db.Config, w);
    }

    /// <inheritdoc />
    public async Task<decimal> Tax(TxnContext ctx) => Loaded(await GetState(ctx, AccessMode.Read)).Tax;

    /// <inheritdoc />
    public async Task<WarehousePaid> Pay(TxnContext ctx, decimal amount)
    {
        var warehouse = Loaded(await GetState(ctx, AccessMode.ReadWrite));
        warehouse.Ytd += amount;
        return new WarehousePaid(warehouse.Name, new Address(warehouse.Street1, warehouse.Street2, warehouse.City, warehouse.State, warehouse.Zip));
    }

    /// <inheritdoc />
    public async Task<Warehouse> Read(TxnContext ctx) => StateCopy.Of(await GetState(ctx, AccessMode.Read));

    private Warehouse Loaded(Warehouse warehouse) =>
        warehouse.Id != 0 ? warehouse : throw new InvalidOperationException($"Actor {Id} holds no warehouse: load the database first (TpcCLoader).");
}

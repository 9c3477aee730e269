using Snapper;
using TpcC.Messages;
using TpcC.Schema;

namespace TpcC.Actors;

/// <summary>A WAREHOUSE row as an actor: read by NewOrder for W_TAX, written by Payment (W_YTD).</summary>
public interface IWarehouseActor : ITransactionalActor, IGrainWithStringKey
{
    /// <summary>Fills the actor with warehouse <paramref name="w"/>'s initial row (TPC-C §4.3.3.1).</summary>
    Task Load(TxnContext ctx, TpcCDatabase db, int w);

    /// <summary>W_TAX (read-only).</summary>
    Task<decimal> Tax(TxnContext ctx);

    /// <summary>Adds <paramref name="amount"/> to W_YTD; returns the name and address Payment shows.</summary>
    Task<WarehousePaid> Pay(TxnContext ctx, decimal amount);

    /// <summary>A copy of the row (read-only), for checks and tests.</summary>
    Task<Warehouse> Read(TxnContext ctx);
}

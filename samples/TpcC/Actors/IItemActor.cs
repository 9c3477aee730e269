using Snapper;
using TpcC.Messages;
using TpcC.Schema;

namespace TpcC.Actors;

/// <summary>One partition of the read-only ITEM catalogue, as an actor.</summary>
public interface IItemActor : ITransactionalActor, IGrainWithStringKey
{
    /// <summary>Fills the actor with the items of its partition (TPC-C §4.3.3.1).</summary>
    Task Load(TxnContext ctx, TpcCDatabase db, int partition);

    /// <summary>The items <paramref name="itemIds"/> in the same order, null for an id not in the catalogue (read-only).</summary>
    Task<ItemInfo?[]> Find(TxnContext ctx, IReadOnlyList<int> itemIds);

    /// <summary>A copy of the partition (read-only), for checks and tests.</summary>
    Task<ItemCatalogue> Read(TxnContext ctx);
}

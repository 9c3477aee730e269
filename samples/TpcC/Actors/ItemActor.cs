using Snapper;
using TpcC.Loading;
using TpcC.Messages;
using TpcC.Schema;

namespace TpcC.Actors;

/// <summary>The item actor: one partition of the read-only catalogue. Reads take no copy, so it is cheap to share.</summary>
public sealed class ItemActor : TransactionalActor<ItemCatalogue>, IItemActor
{
    /// <inheritdoc />
    public async Task Load(TxnContext ctx, TpcCDatabase db, int partition)
    {
        ArgumentNullException.ThrowIfNull(db);
        RowGenerator.FillItems(await GetState(ctx, AccessMode.ReadWrite), db.Config, partition);
    }

    /// <inheritdoc />
    public async Task<ItemInfo?[]> Find(TxnContext ctx, IReadOnlyList<int> itemIds)
    {
        ArgumentNullException.ThrowIfNull(itemIds);
        var catalogue = await GetState(ctx, AccessMode.Read);
        if (catalogue.Partition < 0)
        {
            throw new InvalidOperationException($"Actor {Id} holds no items: load the database first (TpcCLoader).");
        }

        var found = new ItemInfo?[itemIds.Count];
        for (var i = 0; i < found.Length; i++)
        {
            if (catalogue.Items.TryGetValue(itemIds[i], out var item))
            {
                found[i] = new ItemInfo(item.Id, item.Name, item.Price, item.Data.Contains(RandomText.Original, StringComparison.Ordinal));
            }
        }

        return found;
    }

    /// <inheritdoc />
    public async Task<ItemCatalogue> Read(TxnContext ctx) => StateCopy.Of(await GetState(ctx, AccessMode.Read));
}

using Snapper;
using TpcC.Loading;
using TpcC.Schema;
using TpcC.Transactions;

namespace TpcC.Actors;

/// <summary>
/// The district actor: its row, and the root of NewOrder, Payment, StockLevel and Delivery, which
/// call the other actors from here. Split by transaction into <c>DistrictActor.*.cs</c>.
/// </summary>
/// <remarks>
/// Every transaction calls each actor in a fixed pattern that follows from its input, and
/// <see cref="Client.TpcCAccess"/> declares exactly that pattern for PACTs. Where a PACT must
/// call a partition that has nothing to do (Delivery, StockLevel), the call carries an empty
/// request; an ACT skips it.
/// </remarks>
public sealed partial class DistrictActor : TransactionalActor<District>, IDistrictActor
{
    /// <inheritdoc />
    public async Task Load(TxnContext ctx, TpcCDatabase db, int w, int d)
    {
        ArgumentNullException.ThrowIfNull(db);
        RowGenerator.FillDistrict(await GetState(ctx, AccessMode.ReadWrite), db.Config, w, d);
    }

    /// <inheritdoc />
    public async Task<District> Read(TxnContext ctx) => StateCopy.Of(await GetState(ctx, AccessMode.Read));

    private static Address AddressOf(District district) => new(district.Street1, district.Street2, district.City, district.State, district.Zip);

    private async Task<District> LoadedState(TxnContext ctx, AccessMode mode)
    {
        var district = await GetState(ctx, mode);
        return district.Id != 0 ? district : throw new InvalidOperationException($"Actor {Id} holds no district: load the database first (TpcCLoader).");
    }
}

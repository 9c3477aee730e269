using Snapper.Hosting;
using TpcC.Actors;

namespace TpcC;

/// <summary>Registers the TPC-C actors with Snapper.</summary>
public static class TpcCRegistration
{
    /// <summary>Adds the warehouse, district, customer, order, stock and item actors.</summary>
    public static SnapperBuilder AddTpcC(this SnapperBuilder snapper)
    {
        ArgumentNullException.ThrowIfNull(snapper);
        return snapper.AddActor<IWarehouseActor, WarehouseActor>()
                      .AddActor<IDistrictActor, DistrictActor>()
                      .AddActor<ICustomerActor, CustomerActor>()
                      .AddActor<IOrderActor, OrderActor>()
                      .AddActor<IStockActor, StockActor>()
                      .AddActor<IItemActor, ItemActor>();
    }
}

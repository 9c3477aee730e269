using Snapper;
using TpcC.Messages;
using TpcC.Transactions;

namespace TpcC.Actors;

/// <summary>Payment (TPC-C §2.5.2).</summary>
public sealed partial class DistrictActor
{
    /// <inheritdoc />
    public async Task<PaymentResult> Payment(TxnContext ctx, TpcCDatabase db, PaymentInput input)
    {
        ArgumentNullException.ThrowIfNull(db);
        ArgumentNullException.ThrowIfNull(input);
        var (w, d) = (input.WarehouseId, input.DistrictId);
        var district = await LoadedState(ctx, AccessMode.ReadWrite);
        district.Ytd += input.Amount;

        // The warehouse first: the history row's H_DATA holds the warehouse's name.
        var warehouse = await CallActor<IWarehouseActor, WarehousePaid>(ctx, db.Warehouse(w), a => a.Pay(ctx, input.Amount));
        var (cw, cd) = (input.CustomerWarehouseId, input.CustomerDistrictId);
        var payment = new CustomerPayment(input.Customer, w, d, input.Amount, input.Date, warehouse.Name + "    " + district.Name);
        var customer = await CallActor<ICustomerActor, CustomerView>(ctx, db.Customers(cw, cd, db.CustomerPartitionOf(cw, cd, input.Customer)), a => a.Pay(ctx, payment));
        return new PaymentResult(w, d, warehouse.Address, AddressOf(district), customer, input.Amount, input.Date);
    }
}

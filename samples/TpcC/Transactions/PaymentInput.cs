namespace TpcC.Transactions;

/// <summary>
/// Payment's input (§2.5.1): paid at district (w, d) by a customer of district
/// (<see cref="CustomerWarehouseId"/>, <see cref="CustomerDistrictId"/>), which is remote in 15% of payments.
/// </summary>
[GenerateSerializer]
public sealed record PaymentInput(int WarehouseId, int DistrictId, int CustomerWarehouseId, int CustomerDistrictId, CustomerSelector Customer, decimal Amount, DateTime Date) : TpcCInput
{
    /// <inheritdoc />
    public override TpcCTransactionType Type => TpcCTransactionType.Payment;
}

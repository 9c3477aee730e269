using TpcC.Transactions;

namespace TpcC.Messages;

/// <summary>
/// Payment's root → customer actor: who pays, how much, at which district (w, d), and the
/// H_DATA of the history row (W_NAME, four spaces, D_NAME).
/// </summary>
[GenerateSerializer]
public sealed record CustomerPayment(CustomerSelector Customer, int WarehouseId, int DistrictId, decimal Amount, DateTime Date, string HistoryData);

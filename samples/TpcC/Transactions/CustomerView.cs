namespace TpcC.Transactions;

/// <summary>
/// A customer as Payment (§2.5.3.3) and OrderStatus (§2.6.3.3) show it. <see cref="Data"/> is the
/// first 200 characters of C_DATA for bad-credit customers after a Payment, else null.
/// </summary>
[GenerateSerializer]
public sealed record CustomerView(
    int Id,
    int DistrictId,
    int WarehouseId,
    string First,
    string Middle,
    string Last,
    Address Address,
    string Phone,
    DateTime Since,
    string Credit,
    decimal CreditLimit,
    decimal Discount,
    decimal Balance,
    string? Data);

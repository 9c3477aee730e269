namespace TpcC.Schema;

/// <summary>A CUSTOMER row (TPC-C §1.3.4). Immutable: a write replaces the row (<see cref="RowChanges{TKey, TRow}"/>).</summary>
[GenerateSerializer, Immutable]
public sealed record Customer
{
    /// <summary>What C_CREDIT holds for a customer with good credit.</summary>
    public const string GoodCredit = "GC";

    /// <summary>What C_CREDIT holds for a customer with bad credit; Payment then prepends to C_DATA.</summary>
    public const string BadCredit = "BC";

    /// <summary>The longest C_DATA may grow (§1.3.4: variable text, size 500).</summary>
    public const int MaxDataLength = 500;

    /// <summary>C_ID.</summary>
    [Id(0)]
    public int Id { get; init; }

    /// <summary>C_D_ID.</summary>
    [Id(1)]
    public int DistrictId { get; init; }

    /// <summary>C_W_ID.</summary>
    [Id(2)]
    public int WarehouseId { get; init; }

    /// <summary>C_FIRST.</summary>
    [Id(3)]
    public string First { get; init; } = "";

    /// <summary>C_MIDDLE ("OE").</summary>
    [Id(4)]
    public string Middle { get; init; } = "";

    /// <summary>C_LAST; never changes, which is why it can choose the customer's partition.</summary>
    [Id(5)]
    public string Last { get; init; } = "";

    /// <summary>C_STREET_1.</summary>
    [Id(6)]
    public string Street1 { get; init; } = "";

    /// <summary>C_STREET_2.</summary>
    [Id(7)]
    public string Street2 { get; init; } = "";

    /// <summary>C_CITY.</summary>
    [Id(8)]
    public string City { get; init; } = "";

    /// <summary>C_STATE.</summary>
    [Id(9)]
    public string State { get; init; } = "";

    /// <summary>C_ZIP.</summary>
    [Id(10)]
    public string Zip { get; init; } = "";

    /// <summary>C_PHONE.</summary>
    [Id(11)]
    public string Phone { get; init; } = "";

    /// <summary>C_SINCE.</summary>
    [Id(12)]
    public DateTime Since { get; init; }

    /// <summary>C_CREDIT: <see cref="GoodCredit"/> or <see cref="BadCredit"/>.</summary>
    [Id(13)]
    public string Credit { get; init; } = GoodCredit;

    /// <summary>C_CREDIT_LIM.</summary>
    [Id(14)]
    public decimal CreditLimit { get; init; }

    /// <summary>C_DISCOUNT, 0.0000 to 0.5000.</summary>
    [Id(15)]
    public decimal Discount { get; init; }

    /// <summary>C_BALANCE.</summary>
    [Id(16)]
    public decimal Balance { get; init; }

    /// <summary>C_YTD_PAYMENT.</summary>
    [Id(17)]
    public decimal YtdPayment { get; init; }

    /// <summary>C_PAYMENT_CNT.</summary>
    [Id(18)]
    public int PaymentCount { get; init; }

    /// <summary>C_DELIVERY_CNT.</summary>
    [Id(19)]
    public int DeliveryCount { get; init; }

    /// <summary>C_DATA, at most <see cref="MaxDataLength"/> characters.</summary>
    [Id(20)]
    public string Data { get; init; } = "";
}

namespace TpcC.Schema;

/// <summary>A CUSTOMER row (TPC-C §1.3.4).</summary>
public sealed class Customer
{
    /// <summary>What C_CREDIT holds for a customer with good credit.</summary>
    public const string GoodCredit = "GC";

    /// <summary>What C_CREDIT holds for a customer with bad credit; Payment then prepends to C_DATA.</summary>
    public const string BadCredit = "BC";

    /// <summary>The longest C_DATA may grow (§1.3.4: variable text, size 500).</summary>
    public const int MaxDataLength = 500;

    /// <summary>C_ID.</summary>
    public int Id { get; set; }

    /// <summary>C_D_ID.</summary>
    public int DistrictId { get; set; }

    /// <summary>C_W_ID.</summary>
    public int WarehouseId { get; set; }

    /// <summary>C_FIRST.</summary>
    public string First { get; set; } = "";

    /// <summary>C_MIDDLE ("OE").</summary>
    public string Middle { get; set; } = "";

    /// <summary>C_LAST; never changes, which is why it can choose the customer's partition.</summary>
    public string Last { get; set; } = "";

    /// <summary>C_STREET_1.</summary>
    public string Street1 { get; set; } = "";

    /// <summary>C_STREET_2.</summary>
    public string Street2 { get; set; } = "";

    /// <summary>C_CITY.</summary>
    public string City { get; set; } = "";

    /// <summary>C_STATE.</summary>
    public string State { get; set; } = "";

    /// <summary>C_ZIP.</summary>
    public string Zip { get; set; } = "";

    /// <summary>C_PHONE.</summary>
    public string Phone { get; set; } = "";

    /// <summary>C_SINCE.</summary>
    public DateTime Since { get; set; }

    /// <summary>C_CREDIT: <see cref="GoodCredit"/> or <see cref="BadCredit"/>.</summary>
    public string Credit { get; set; } = GoodCredit;

    /// <summary>C_CREDIT_LIM.</summary>
    public decimal CreditLimit { get; set; }

    /// <summary>C_DISCOUNT, 0.0000 to 0.5000.</summary>
    public decimal Discount { get; set; }

    /// <summary>C_BALANCE.</summary>
    public decimal Balance { get; set; }

    /// <summary>C_YTD_PAYMENT.</summary>
    public decimal YtdPayment { get; set; }

    /// <summary>C_PAYMENT_CNT.</summary>
    public int PaymentCount { get; set; }

    /// <summary>C_DELIVERY_CNT.</summary>
    public int DeliveryCount { get; set; }

    /// <summary>C_DATA, at most <see cref="MaxDataLength"/> characters.</summary>
    public string Data { get; set; } = "";
}

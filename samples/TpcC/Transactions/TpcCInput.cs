namespace TpcC.Transactions;

/// <summary>The input of one TPC-C transaction; the derived record says which.</summary>
[GenerateSerializer]
public abstract record TpcCInput
{
    /// <summary>Which transaction this input is for.</summary>
    public abstract TpcCTransactionType Type { get; }

    /// <summary>The home warehouse: where the transaction is entered.</summary>
    public abstract int WarehouseId { get; init; }
}

namespace TpcC.Schema;

/// <summary>A STOCK row (TPC-C §1.3.8). Immutable: a write replaces the row (<see cref="RowChanges{TKey, TRow}"/>).</summary>
[GenerateSerializer, Immutable]
public sealed record Stock
{
    /// <summary>S_I_ID.</summary>
    [Id(0)]
    public int ItemId { get; init; }

    /// <summary>S_QUANTITY.</summary>
    [Id(1)]
    public int Quantity { get; init; }

    /// <summary>Characters of each S_DIST_xx.</summary>
    public const int DistLength = 24;

    /// <summary>
    /// S_DIST_01 to S_DIST_10 side by side, 24 characters each. One string rather than ten: a
    /// row is serialized whole whenever it changes, and one string serializes about three times
    /// faster than ten.
    /// </summary>
    [Id(2)]
    public string Dists { get; init; } = "";

    /// <summary>S_YTD.</summary>
    [Id(3)]
    public int Ytd { get; init; }

    /// <summary>S_ORDER_CNT.</summary>
    [Id(4)]
    public int OrderCount { get; init; }

    /// <summary>S_REMOTE_CNT: lines supplied to another warehouse's orders.</summary>
    [Id(5)]
    public int RemoteCount { get; init; }

    /// <summary>S_DATA.</summary>
    [Id(6)]
    public string Data { get; init; } = "";

    /// <summary>S_DIST_xx of district <paramref name="districtId"/> (1 to 10).</summary>
    public string DistFor(int districtId) => Dists.Substring((districtId - 1) * DistLength, DistLength);
}

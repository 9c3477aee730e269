namespace TpcC.Consistency;

/// <summary>One broken consistency condition of TPC-C §3.3.2, where, and the values that break it.</summary>
/// <param name="Condition">1 to 4.</param>
/// <param name="Where">The warehouse (<c>w</c>) or district (<c>w/d</c>).</param>
/// <param name="Detail">The values compared.</param>
public sealed record ConsistencyViolation(int Condition, string Where, string Detail)
{
    /// <summary>What condition <paramref name="condition"/> states.</summary>
    public static string Describe(int condition) => condition switch
    {
        1 => "W_YTD = sum(D_YTD)",
        2 => "D_NEXT_O_ID - 1 = max(O_ID) = max(NO_O_ID)",
        3 => "max(NO_O_ID) - min(NO_O_ID) + 1 = number of NEW-ORDER rows",
        4 => "sum(O_OL_CNT) = number of ORDER-LINE rows",
        _ => throw new ArgumentOutOfRangeException(nameof(condition), condition, "TPC-C §3.3.2 conditions 1 to 4 are checked."),
    };

    /// <inheritdoc />
    public override string ToString() => $"condition {Condition} ({Describe(Condition)}) violated at {Where}: {Detail}";
}

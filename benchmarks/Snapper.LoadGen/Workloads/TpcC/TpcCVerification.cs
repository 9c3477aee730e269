using TpcC.Consistency;

namespace Snapper.LoadGen.Workloads.TpcC;

/// <summary>The TPC-C consistency check of one mode's database (<c>--verify</c>), as the report carries it.</summary>
/// <param name="Ok">True when conditions 1–4 of TPC-C §3.3.2 hold everywhere.</param>
/// <param name="Warehouses">Warehouses checked.</param>
/// <param name="Districts">Districts checked.</param>
/// <param name="ViolatedConditions">The numbers of the violated conditions, ascending; empty when ok.</param>
/// <param name="Violations">Each violation: the condition, where, and the values compared.</param>
public sealed record TpcCVerification(bool Ok, int Warehouses, int Districts, IReadOnlyList<int> ViolatedConditions, IReadOnlyList<string> Violations)
{
    /// <summary>The report's form of <paramref name="result"/>.</summary>
    public static TpcCVerification From(TpcCConsistencyResult result)
    {
        ArgumentNullException.ThrowIfNull(result);
        return new TpcCVerification(result.Ok, result.Warehouses, result.Districts, result.ViolatedConditions, [.. result.Violations.Select(v => v.ToString())]);
    }

    /// <summary>The violated conditions and what each states, e.g. "2 (D_NEXT_O_ID - 1 = max(O_ID) = max(NO_O_ID))".</summary>
    public string DescribeViolated() =>
        string.Join("; ", ViolatedConditions.Select(c => $"{c} ({ConsistencyViolation.Describe(c)})"));
}

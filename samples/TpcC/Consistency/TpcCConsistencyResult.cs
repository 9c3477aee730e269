using System.Text;

namespace TpcC.Consistency;

/// <summary>The outcome of <see cref="TpcCConsistency.CheckAsync"/>: every violation found, and how much was checked.</summary>
public sealed record TpcCConsistencyResult(IReadOnlyList<ConsistencyViolation> Violations, int Warehouses, int Districts)
{
    /// <summary>True when conditions 1–4 hold everywhere.</summary>
    public bool Ok => Violations.Count == 0;

    /// <summary>The numbers of the violated conditions, ascending.</summary>
    public IReadOnlyList<int> ViolatedConditions => [.. Violations.Select(v => v.Condition).Distinct().Order()];

    /// <inheritdoc />
    public override string ToString()
    {
        if (Ok)
        {
            return $"TPC-C consistency conditions 1-4 hold ({Warehouses} warehouse(s), {Districts} district(s)).";
        }

        var text = new StringBuilder($"TPC-C consistency violated: condition(s) {string.Join(", ", ViolatedConditions)} ({Violations.Count} violation(s)):");
        foreach (var violation in Violations)
        {
            text.AppendLine().Append("  ").Append(violation);
        }

        return text.ToString();
    }
}

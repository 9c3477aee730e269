namespace Snapper.LoadGen.Workloads;

/// <summary>The money check of one mode: the touched accounts must still hold what they started with.</summary>
/// <param name="Accounts">Accounts read.</param>
/// <param name="Expected">Accounts × (initial checking + initial savings).</param>
/// <param name="Actual">Sum of the balances read.</param>
public sealed record VerificationResult(int Accounts, decimal Expected, decimal Actual)
{
    /// <summary>Actual − expected: money created (positive) or lost (negative).</summary>
    public decimal Difference => Actual - Expected;

    /// <summary>True when no money was created or lost.</summary>
    public bool Ok => Difference == 0;
}

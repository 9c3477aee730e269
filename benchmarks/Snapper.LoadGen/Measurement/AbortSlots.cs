namespace Snapper.LoadGen.Measurement;

/// <summary>
/// Abort counters are kept in arrays indexed by <see cref="AbortReason"/> value, plus one slot for
/// "Error" (anything that is not a <see cref="TransactionAbortedException"/>, e.g. the nt baseline
/// failing): an array increment keeps the hot loop cheaper than a dictionary keyed by name.
/// </summary>
public static class AbortSlots
{
    private static readonly AbortReason[] Reasons = Enum.GetValues<AbortReason>();

    /// <summary>The name reported for exceptions that are not transaction aborts.</summary>
    public const string ErrorName = "Error";

    /// <summary>Slots needed: one past the largest reason value, plus Error.</summary>
    public static int Count { get; } = Reasons.Max(r => (int)r) + 2;

    /// <summary>The slot of non-transactional failures.</summary>
    public static int Error { get; } = Count - 1;

    /// <summary>The slot of <paramref name="reason"/> (Error for a value outside the enum).</summary>
    public static int Of(AbortReason reason) => (int)reason is var slot && slot >= 0 && slot < Error ? slot : Error;

    /// <summary>The name of a slot, as reported in the table and JSON.</summary>
    public static string NameOf(int slot) => slot == Error || !Enum.IsDefined((AbortReason)slot) ? ErrorName : ((AbortReason)slot).ToString();
}

using Orleans.Transactions;

namespace Snapper.LoadGen.Measurement;

/// <summary>
/// Abort counters are kept in arrays: one slot per <see cref="AbortReason"/> value, then one per
/// kind of abort of Orleans' own transactions (the <c>orleans-txn</c> peer), then one for "Error"
/// (anything else, e.g. the nt baseline failing): an array increment keeps the hot loop cheaper
/// than a dictionary keyed by name.
/// </summary>
public static class AbortSlots
{
    private static readonly AbortReason[] Reasons = Enum.GetValues<AbortReason>();

    // Orleans' transaction exceptions, most specific first, named as reported.
    private static readonly (Type Type, string Name)[] OrleansAborts =
    [
        (typeof(OrleansCascadingAbortException), "OrleansCascading"),
        (typeof(OrleansTransactionLockUpgradeException), "OrleansLockUpgrade"),
        (typeof(OrleansBrokenTransactionLockException), "OrleansBrokenLock"),
        (typeof(OrleansTransactionPrepareTimeoutException), "OrleansPrepareTimeout"),
        (typeof(OrleansTransactionInDoubtException), "OrleansInDoubt"),
        (typeof(OrleansTransactionOverloadException), "OrleansOverload"),
        (typeof(OrleansTransactionAbortedException), "OrleansAborted"),
        (typeof(OrleansTransactionException), "OrleansTransaction"),
        (typeof(TimeoutException), "Timeout"),
    ];

    private static readonly int FirstOrleansSlot = Reasons.Max(r => (int)r) + 1;

    /// <summary>The name reported for exceptions that are not transaction aborts.</summary>
    public const string ErrorName = "Error";

    /// <summary>Slots needed: one past the largest reason value, Orleans' kinds, and Error.</summary>
    public static int Count { get; } = FirstOrleansSlot + OrleansAborts.Length + 1;

    /// <summary>The slot of non-transactional failures.</summary>
    public static int Error { get; } = Count - 1;

    /// <summary>The slot of <paramref name="reason"/> (Error for a value outside the enum).</summary>
    public static int Of(AbortReason reason) => (int)reason is var slot && slot >= 0 && slot < FirstOrleansSlot ? slot : Error;

    /// <summary>The slot of an exception a transaction ended with.</summary>
    public static int Of(Exception exception)
    {
        ArgumentNullException.ThrowIfNull(exception);
        if (exception is TransactionAbortedException aborted)
        {
            return Of(aborted.Reason);
        }

        for (var i = 0; i < OrleansAborts.Length; i++)
        {
            if (OrleansAborts[i].Type.IsInstanceOfType(exception))
            {
                return FirstOrleansSlot + i;
            }
        }

        return Error;
    }

    /// <summary>The name of a slot, as reported in the table and JSON.</summary>
    public static string NameOf(int slot) =>
        slot >= FirstOrleansSlot && slot < Error ? OrleansAborts[slot - FirstOrleansSlot].Name
        : slot == Error || !Enum.IsDefined((AbortReason)slot) ? ErrorName
        : ((AbortReason)slot).ToString();

    /// <summary>True for the slots that mean the system failed rather than the transaction lost a conflict.</summary>
    public static bool IsFailure(int slot) => slot == Error || slot == Of(AbortReason.Failure);
}

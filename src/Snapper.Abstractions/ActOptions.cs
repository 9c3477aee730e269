namespace Snapper;

/// <summary>Per-transaction choices for an ACT; anything left null takes the silo's default.</summary>
public sealed record ActOptions
{
    /// <summary>The silo's defaults.</summary>
    public static ActOptions Default { get; } = new();

    /// <summary>Early lock release for this ACT (the Thorp protocol).</summary>
    public static ActOptions EarlyRelease { get; } = new() { EarlyLockRelease = true };

    /// <summary>
    /// True: release this ACT's locks when a participant has voted in phase one, before its prepare
    /// record is durable (Thorp §II). Later ACTs then read its prepared state and take a commit
    /// dependency on it: they commit only after it commits and abort if it aborts
    /// (<see cref="AbortReason.Cascading"/>). False: strict two-phase locking, locks held until the
    /// decision. Null: the silo's <c>SnapperOptions.EarlyLockRelease</c>.
    /// </summary>
    public bool? EarlyLockRelease { get; init; }
}

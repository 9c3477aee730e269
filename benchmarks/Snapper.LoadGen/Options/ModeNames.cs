namespace Snapper.LoadGen.Options;

/// <summary>
/// The transaction modes LoadGen runs. Kept as strings, not an enum, because some names
/// (<c>act-elr</c>, <c>orleans-txn</c>) are not identifiers and the JSON report uses them verbatim.
/// </summary>
public static class ModeNames
{
    /// <summary>Plain actor calls, no transactions: the baseline every other mode is compared with.</summary>
    public const string Nt = "nt";

    /// <summary>Snapper ACTs: strict 2PL with wait-die and two-phase commit.</summary>
    public const string Act = "act";

    /// <summary>Snapper PACTs: deterministic batches from the coordinator ring; the declaration comes from the input.</summary>
    public const string Pact = "pact";

    /// <summary>Snapper ACTs with early lock release and commit dependencies (the Thorp protocol).</summary>
    public const string ActElr = "act-elr";

    /// <summary>PACTs and ACTs at the same time on the same actors (<c>--pact-percent</c> of them PACTs).</summary>
    public const string Hybrid = "hybrid";

    /// <summary>
    /// The peer at its best: the same SmallBank on <c>Microsoft.Orleans.Transactions</c>
    /// (<c>ITransactionalState</c>, <c>[Transaction]</c>), its accounts taken one after another in key
    /// order, so it cannot deadlock (the Snapper paper's "OrleansTxn no-deadlock").
    /// </summary>
    public const string OrleansTxn = "orleans-txn";

    /// <summary>
    /// The peer as first written, kept for the record: the deposits run in parallel, so two transfers
    /// that meet on two accounts can lock them in opposite orders and wait for Orleans' lock timeouts.
    /// </summary>
    public const string OrleansTxnParallel = "orleans-txn-parallel";

    /// <summary>Modes this build can run, in the order they are best run (baseline first).</summary>
    public static IReadOnlyList<string> Supported { get; } = [Nt, Pact, Act, ActElr, Hybrid, OrleansTxn, OrleansTxnParallel];

    /// <summary>The modes that run on Orleans' own transactions.</summary>
    public static bool IsOrleansTxn(string mode) => mode is OrleansTxn or OrleansTxnParallel;

    /// <summary>The modes run when <c>--modes</c> is not given.</summary>
    public static IReadOnlyList<string> Default { get; } = [Nt, Pact, Act];

    /// <summary>
    /// Each transactional mode works on its own block of actor keys (block × --actors + key), so one
    /// mode's state never leaks into another's verification, and keys stay the same for a given
    /// --actors whatever else --modes lists.
    /// </summary>
    public static int KeyBlock(string mode) => mode switch
    {
        Act => 0,
        Pact => 1,
        Hybrid => 2,
        ActElr => 3,
        OrleansTxn => 4,
        OrleansTxnParallel => 5,
        _ => throw new ArgumentOutOfRangeException(nameof(mode), mode, "Only transactional modes have a key block."),
    };
}

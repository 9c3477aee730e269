namespace Snapper;

/// <summary>Why a transaction was aborted. Every abort is counted by its reason.</summary>
[GenerateSerializer]
public enum AbortReason
{
    /// <summary>User code threw, in the root or in any nested call.</summary>
    User = 0,

    /// <summary>Wait-die: a younger transaction asked for a lock held by an older one and died.</summary>
    WaitDie = 1,

    /// <summary>A read lock could not become a write lock because other transactions also read the actor.</summary>
    UpgradeConflict = 2,

    /// <summary>A PACT/ACT deadlock was broken by the deadlock timeout (the ACT is aborted).</summary>
    Deadlock = 3,

    /// <summary>The hybrid serializability check found that the ACT breaks serializability.</summary>
    SerializabilityViolation = 4,

    /// <summary>The hybrid serializability check could not prove the ACT serializable.</summary>
    SerializabilityUncertain = 5,

    /// <summary>Aborted because a transaction it depends on aborted.</summary>
    Cascading = 6,

    /// <summary>A PACT's access declaration did not match what it did.</summary>
    DeclarationError = 7,

    /// <summary>
    /// The runtime failed: log storage unavailable, a participant lost, a message undeliverable (a
    /// nested call Orleans could not deliver, or whose answer its response timeout replaced).
    /// </summary>
    Failure = 8,

    /// <summary>
    /// The transaction did not finish before its deadline; for a promoted ACT, also when its
    /// reconnaissance found no end to its body (past the deadline, or too many calls).
    /// </summary>
    Timeout = 9,

    /// <summary>
    /// A PACT's call had not reached its actor long after such calls usually do (a slow network, a
    /// paused sender), so the PACT gave up its turn there instead of holding up every batch behind
    /// it (a PACT that read its writes aborts with it). <c>RunPact</c> runs such a PACT again at once, in
    /// a new batch; from its fifth run on it waits for its calls. A caller does not see this reason.
    /// </summary>
    LateCall = 10,
}

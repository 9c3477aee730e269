namespace Snapper.Protocol;

/// <summary>What a checkpoint round waits for on every active actor before it reads the logs (docs/architecture.md, "Checkpoints").</summary>
internal enum SettleStep
{
    /// <summary>Every transaction the actor takes part in at the call (an ACT's record, a completed batch awaiting its commit) is decided there.</summary>
    Writes,

    /// <summary>Every ACT rooted at the actor at the call has ended (committed, with its CoordCommit appended, or aborted).</summary>
    RootedActs,
}

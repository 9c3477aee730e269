namespace Snapper.Coordination;

/// <summary>The life of an emitted batch at its coordinator.</summary>
internal enum BatchPhase : byte
{
    /// <summary>BatchMsgs sent; waiting for BatchComplete from every participant.</summary>
    Emitted = 1,

    /// <summary>Every participant completed it; waiting for the previous batch to be decided.</summary>
    Completed = 2,

    /// <summary>
    /// Decided to commit (the next batch may decide now); its BatchCommit is being logged. Only a
    /// failure to log it, here or in a batch before it, can still turn it into an abort.
    /// </summary>
    Committing = 3,

    /// <summary>Committed (BatchCommit acknowledged to the participants) or aborted: resolved either way.</summary>
    Resolved = 4,

    /// <summary>Failed, or doomed by an aborted predecessor: it will abort once its predecessor has resolved.</summary>
    Aborting = 5,

    /// <summary>
    /// Its BatchCommit is durable; waiting for the previous batch to resolve before telling the
    /// participants, because the record counts only if the previous batch's commit is durable too.
    /// </summary>
    CommitLogged = 6,
}

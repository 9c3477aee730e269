namespace Snapper.Coordination;

/// <summary>The life of an emitted batch at its coordinator.</summary>
internal enum BatchPhase : byte
{
    /// <summary>BatchMsgs sent; waiting for BatchComplete from every participant.</summary>
    Emitted = 1,

    /// <summary>Every participant completed it; waiting for the previous batch to resolve.</summary>
    Completed = 2,

    /// <summary>Logging BatchCommit: the decision is being made and can no longer be undone by a cascade.</summary>
    Committing = 3,

    /// <summary>Committed (BatchCommit durable) or aborted: resolved either way.</summary>
    Resolved = 4,

    /// <summary>Failed, or doomed by an aborted predecessor: it will abort once its predecessor has resolved.</summary>
    Aborting = 5,
}

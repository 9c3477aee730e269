namespace Snapper;

/// <summary>How a transaction accesses an actor's state through <c>GetState</c> (Snapper §3.2.2).</summary>
[GenerateSerializer]
public enum AccessMode
{
    /// <summary>Read only: takes a shared lock; the returned state must not be modified.</summary>
    Read = 0,

    /// <summary>Read and write: takes an exclusive lock and returns the transaction's private working copy.</summary>
    ReadWrite = 1,
}

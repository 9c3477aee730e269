namespace Snapper.History;

/// <summary>How a transaction of the list-append workload ended, as seen by the client.</summary>
public enum TransactionStatus
{
    /// <summary>The transaction committed; its appends are trusted observations. JSON: <c>"committed"</c>.</summary>
    Committed,

    /// <summary>The transaction aborted; none of its appends may be visible. JSON: <c>"aborted"</c>.</summary>
    Aborted,

    /// <summary>
    /// The client lost contact: the transaction may or may not have committed, so its appends must be
    /// visible on all of its actors or on none. JSON: <c>"unknown"</c>.
    /// </summary>
    Unknown,
}

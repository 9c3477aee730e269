namespace Snapper;

/// <summary>
/// Thrown where a body reads the tid or batch of a start context placed on send (<see cref="IPlacedOnSend"/>)
/// before its call is sent: Snapper runs that transaction again placed up front, and places every
/// later one of its call site so. Never reaches user code's caller.
/// </summary>
internal sealed class StartNotPlacedException(string member)
    : InvalidOperationException($"The transaction's {member} is not known before its first call is sent.");

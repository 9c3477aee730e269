namespace Snapper.Act;

/// <summary>
/// Carries a failed call's <see cref="ExecutionInfo"/> back to the caller together with the
/// user's exception, so the root learns every participant even when the call tree failed.
/// Never reaches user code: <c>CallActor</c> unwraps it and rethrows the original exception.
/// </summary>
internal sealed class ParticipantCallException(ExecutionInfo info, Exception inner)
    : Exception($"A call in the transaction failed: {inner.Message}", inner)
{
    public ExecutionInfo Info { get; } = info;

    public Exception Original => InnerException!;
}

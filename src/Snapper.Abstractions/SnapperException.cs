namespace Snapper;

/// <summary>
/// Snapper was used in a way it cannot honour: an unknown actor, a stale <see cref="TxnContext"/>,
/// a state that cannot be serialized. The message names the problem. Inside a transaction it
/// aborts the transaction with <see cref="AbortReason.Failure"/>.
/// </summary>
[GenerateSerializer]
public sealed class SnapperException : Exception
{
    /// <summary>Creates the exception with a message naming the problem.</summary>
    public SnapperException(string message)
        : base(message)
    {
    }

    /// <summary>Creates the exception with a message and its cause.</summary>
    public SnapperException(string message, Exception innerException)
        : base(message, innerException)
    {
    }
}

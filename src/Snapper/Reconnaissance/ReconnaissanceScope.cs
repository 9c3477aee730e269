using Snapper.Protocol;

namespace Snapper.Reconnaissance;

/// <summary>
/// One call of a reconnaissance run on one actor (<see cref="ReconnaissanceParticipant{TState}"/>):
/// the calls made from it, summed over its subtree, and the copy of the state it writes, so that it
/// reads its own writes. Flows with the call's user code (an async local), so nothing is kept on
/// the actor once the call has returned.
/// </summary>
internal sealed class ReconnaissanceScope(TxnContext ctx)
{
    private static readonly AsyncLocal<ReconnaissanceScope?> Flow = new();

    /// <summary>The scope of the reconnaissance call whose user code runs here, or null.</summary>
    public static ReconnaissanceScope? Current
    {
        get => Flow.Value;
        set => Flow.Value = value;
    }

    /// <summary>The context the call came with.</summary>
    public TxnContext Context => ctx;

    /// <summary>This call and every call made from it, on which actor, how many times.</summary>
    public ExecutionInfo Learned { get; } = new();

    /// <summary>The state this call writes: a copy, dropped when the call returns.</summary>
    public object? Working { get; set; }
}

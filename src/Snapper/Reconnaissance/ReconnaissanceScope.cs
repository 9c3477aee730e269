using Snapper.Protocol;

namespace Snapper.Reconnaissance;

/// <summary>
/// One call of a reconnaissance run on one actor (<see cref="ReconnaissanceParticipant{TState}"/>):
/// the calls made from it, summed over its subtree. Flows with the call's user code (an async
/// local), so nothing of it is kept on the actor once the call has returned; what the run wrote
/// there is kept by run (<see cref="ReconnaissanceWrites{TState}"/>), for the run's next call.
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

    /// <summary>This call and every call made from it, on which actor, how many times; and the run's stop, if it stopped.</summary>
    public ExecutionInfo Learned { get; } = new();

    /// <summary>How many calls were made from this call, over its subtree.</summary>
    public int Calls { get; private set; }

    /// <summary>A call made from this one has returned, with what its subtree did (<paramref name="callee"/>).</summary>
    public void Returned(ExecutionInfo callee)
    {
        Learned.AddCalls(callee);
        foreach (var participation in callee.Participants.Values)
        {
            Calls += participation.Calls;
        }
    }
}

namespace Snapper.Act;

/// <summary>
/// One incoming call of an ACT on an actor, and the calls it makes through <c>CallActor</c> that
/// are still under way. User code may return (or throw) while a call it did not await is still
/// running; such a call can take locks after the root has decided. So the actor does not answer
/// until every call it started has returned, and the transaction then aborts with a message saying
/// what to fix: the root learns every actor the call tree reached without a shared registry.
/// </summary>
/// <remarks>
/// Found through the call's async flow; touched only in the actor's turns, so it needs no lock.
/// </remarks>
internal sealed class CallScope(long tid)
{
    private static readonly AsyncLocal<CallScope?> Flow = new();
    private int inFlight;
    private TaskCompletionSource? drained;

    /// <summary>The incoming call whose flow this code runs in, or null.</summary>
    public static CallScope? Current
    {
        get => Flow.Value;
        set => Flow.Value = value;
    }

    public long Tid { get; } = tid;

    /// <summary>Calls started from this scope that have not returned.</summary>
    public int InFlight => inFlight;

    /// <summary>The call has answered: its flow may go on in a task it did not await, but what that does is not reported.</summary>
    public bool Answered { get; private set; }

    public void Answer() => Answered = true;

    public void Started() => inFlight++;

    public void Ended()
    {
        if (--inFlight == 0)
        {
            drained?.TrySetResult();
        }
    }

    /// <summary>Completes when no call started from this scope is under way.</summary>
    public Task WhenDrained() =>
        inFlight == 0 ? Task.CompletedTask : (drained ??= new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously)).Task;
}

using Snapper.Protocol;

namespace Snapper.Scheduling;

/// <summary>One PACT of a sub-batch: its tid and how many calls it declared on this actor.</summary>
internal sealed class ScheduledPact(long tid, int declaredCalls)
{
    public long Tid { get; } = tid;

    public int DeclaredCalls { get; } = declaredCalls;

    /// <summary>Calls that have been let in (checked against the declaration on arrival).</summary>
    public int CallsStarted { get; set; }

    /// <summary>Calls that have returned; the PACT is done here when this reaches <see cref="DeclaredCalls"/>.</summary>
    public int CallsFinished { get; set; }

    /// <summary>Set when the PACT's turn comes; calls that arrived early wait on it.</summary>
    public TaskCompletionSource? Turn { get; set; }

    /// <summary>
    /// Why the PACT aborted, once it has (null while it lives): its turn here ends as soon as no call
    /// of it runs here, a turn not reached yet is skipped, and its later calls are refused.
    /// </summary>
    public Exception? AbortedBy { get; set; }

    /// <summary>Refuses a call (or state access) of this PACT once it has aborted: the reason is its own abort's.</summary>
    public TransactionAbortedException Refusal() => Aborts.PactRefused(Tid, AbortedBy);

    /// <summary>It has read or written the state here (its first access is in the actor's access log).</summary>
    public bool Accessed { get; set; }

    /// <summary>It has written the state here (its first write, with the state before it, is in the access log).</summary>
    public bool Wrote { get; set; }

    /// <summary>Completed when its turn ends here after it aborted (someone waits for that).</summary>
    public TaskCompletionSource? TurnEnded { get; set; }

    /// <summary>True while a call of it runs here.</summary>
    public bool HasCallsRunning => CallsStarted > CallsFinished;

    /// <summary>Its turn here is over: it made its declared calls, or it aborted and no call of it runs.</summary>
    public bool TurnOver => CallsFinished >= DeclaredCalls || (AbortedBy is not null && !HasCallsRunning);
}

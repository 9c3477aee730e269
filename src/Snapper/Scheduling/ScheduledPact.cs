using Snapper.Protocol;

namespace Snapper.Scheduling;

/// <summary>One PACT of a sub-batch: its tid and how many calls it declared on this actor.</summary>
internal sealed class ScheduledPact(long tid, int declaredCalls)
{
    public long Tid { get; } = tid;

    /// <summary>The calls it declared here; cut to those it made once it is released (<see cref="Release"/>).</summary>
    public int DeclaredCalls { get; private set; } = declaredCalls;

    /// <summary>True once its body returned at its root with fewer calls here than it declared.</summary>
    public bool Released { get; private set; }

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

    /// <summary>
    /// Its body has returned at its root: no more calls of it come here, so its turn ends once the
    /// calls it made have returned (a turn not reached yet is skipped). What it did here stays.
    /// </summary>
    public void Release()
    {
        DeclaredCalls = CallsStarted;
        AwaitsRelease = false;
        Released = true;
    }

    /// <summary>
    /// A promoted PACT (run in place of an ACT, declaring what its attempt saw) has called here:
    /// once it has written here, its turn ends only when its root releases it, not when its
    /// declared calls are made. Its declaration is a guess; if the body then calls beyond it, the
    /// PACT aborts while no one has read its writes here, so its abort takes nobody else along. A
    /// turn that only read ends as usual: an abort has nothing to take back there.
    /// </summary>
    public bool AwaitsRelease { get; set; }

    /// <summary>Its turn waits for its root's release (<see cref="AwaitsRelease"/>, and it wrote here).</summary>
    public bool HeldForRelease => AwaitsRelease && Wrote;

    /// <summary>True while a call of it runs here.</summary>
    public bool HasCallsRunning => CallsStarted > CallsFinished;

    /// <summary>Its turn here is over: it made its declared calls (and was released, if it awaits that), or it aborted and no call of it runs.</summary>
    public bool TurnOver => (CallsFinished >= DeclaredCalls && !HeldForRelease) || (AbortedBy is not null && !HasCallsRunning);
}

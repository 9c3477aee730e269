namespace Snapper.Pact;

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
}

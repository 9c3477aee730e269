namespace Snapper.Scheduling;

/// <summary>
/// The ACTs an actor's local schedule holds between the same two batches (Snapper §4.4.1, Fig. 8).
/// They are admitted together when the batch before them completes and run concurrently under the
/// actor's 2PL lock; the batch after them starts only when all of them have committed or aborted.
/// </summary>
/// <remarks>Owned by one actor's <see cref="LocalSchedule"/>; touched only inside its turns.</remarks>
internal sealed class ActGroup
{
    private TaskCompletionSource? opened;

    public ActGroupPhase Phase { get; private set; } = ActGroupPhase.Waiting;

    /// <summary>Tids of the ACTs in the group that have not yet committed or aborted here.</summary>
    public HashSet<long> Members { get; } = new();

    /// <summary>Completes when the group is admitted (no batch before it is left running or queued).</summary>
    public Task WhenOpen => Phase == ActGroupPhase.Open
        ? Task.CompletedTask
        : (opened ??= new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously)).Task;

    public void Open()
    {
        if (Phase == ActGroupPhase.Open)
        {
            return;
        }

        Phase = ActGroupPhase.Open;
        opened?.TrySetResult();
    }
}

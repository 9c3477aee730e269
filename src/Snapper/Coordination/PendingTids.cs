namespace Snapper.Coordination;

/// <summary>AllocateActTids at a coordinator: a request for a range of ACT tids, waiting for the token.</summary>
internal sealed class PendingTids(int count)
{
    public int Count { get; } = count;

    public TaskCompletionSource<TidRange> Allocated { get; } = new(TaskCreationOptions.RunContinuationsAsynchronously);
}

using Microsoft.Extensions.Options;
using Snapper.Configuration;

namespace Snapper.Coordination;

/// <summary>
/// This process's pre-allocated ACT tids (Snapper §4.3.1): a range of
/// <see cref="SnapperOptions.ActTidRangeSize"/> tids at a time from a coordinator, which takes them
/// from the token, so an ACT gets its tid without a round trip. The next range is fetched when half
/// of the current one is used, so ACTs rarely wait for the token.
/// </summary>
internal sealed class TidSource(ICoordinatorDirectory coordinators, IOptions<SnapperOptions> options)
{
    private readonly int rangeSize = options.Value.ActTidRangeSize;
    private readonly object gate = new();

    // ACTs that asked while no tid was left, in the order they asked: each gets its tid in that
    // order when the range comes, so an ACT started first is older (wait-die), as it would be
    // with tids to spare.
    private readonly Queue<TaskCompletionSource<long>> waiting = new();
    private long next;
    private long end;
    private TidRange? spare;
    private Task? fetching;

    public ValueTask<long> NextActTid()
    {
        lock (gate)
        {
            if (waiting.Count == 0 && TryTake(out var tid))
            {
                return new ValueTask<long>(tid);
            }

            var waiter = new TaskCompletionSource<long>(TaskCreationOptions.RunContinuationsAsynchronously);
            waiting.Enqueue(waiter);
            fetching ??= Fetch();
            return new ValueTask<long>(waiter.Task);
        }
    }

    // Under the gate.
    private bool TryTake(out long tid)
    {
        if (next == end && spare is { } range)
        {
            (next, end, spare) = (range.First, range.First + range.Count, null);
        }

        if (next == end)
        {
            tid = 0;
            return false;
        }

        tid = next++;
        if (spare is null && fetching is null && end - next < rangeSize / 2)
        {
            fetching = Fetch();
        }

        return true;
    }

    private async Task Fetch()
    {
        await Task.Yield(); // out of the caller's lock before any grain call
        Exception? failure = null;
        try
        {
            var coordinator = await coordinators.ForTids();
            var range = await coordinator.AllocateActTids(rangeSize);
            lock (gate)
            {
                spare = range;
            }
        }
        catch (Exception e)
        {
            if (e is not TransactionAbortedException)
            {
                coordinators.Refresh(); // its silo may have left the cluster: the next request looks again
            }

            failure = e;
        }

        // Hand out tids to those waiting, oldest first; any left over wait for the next range.
        List<(TaskCompletionSource<long> Waiter, long Tid)> served = [];
        List<TaskCompletionSource<long>> failed = [];
        lock (gate)
        {
            fetching = null;
            while (waiting.Count > 0)
            {
                if (failure is not null)
                {
                    failed.Add(waiting.Dequeue());
                }
                else if (TryTake(out var tid))
                {
                    served.Add((waiting.Dequeue(), tid));
                }
                else
                {
                    fetching ??= Fetch();
                    break;
                }
            }
        }

        foreach (var (waiter, tid) in served)
        {
            waiter.TrySetResult(tid);
        }

        foreach (var waiter in failed)
        {
            waiter.TrySetException(failure!);
        }
    }
}

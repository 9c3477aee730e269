using Microsoft.Extensions.Options;
using Snapper.Hosting;

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
    private long next;
    private long end;
    private TidRange? spare;
    private Task? fetching;

    public ValueTask<long> NextActTid()
    {
        lock (gate)
        {
            if (TryTake(out var tid))
            {
                return new ValueTask<long>(tid);
            }
        }

        return WaitForRange();
    }

    private async ValueTask<long> WaitForRange()
    {
        while (true)
        {
            Task pending;
            lock (gate)
            {
                if (TryTake(out var tid))
                {
                    return tid;
                }

                pending = fetching ??= Fetch();
            }

            await pending;
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
        try
        {
            var coordinator = await coordinators.ForTids();
            var range = await coordinator.AllocateActTids(rangeSize);
            lock (gate)
            {
                spare = range;
            }
        }
        catch (Exception e) when (e is not TransactionAbortedException)
        {
            coordinators.Refresh(); // its silo may have left the cluster: the next request looks again
            throw;
        }
        finally
        {
            lock (gate)
            {
                fetching = null;
            }
        }
    }
}

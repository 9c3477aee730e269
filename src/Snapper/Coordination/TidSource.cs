using Microsoft.Extensions.Options;
using Snapper.Hosting;

namespace Snapper.Coordination;

/// <summary>
/// The silo's cache of pre-allocated ACT tids: one trip to the tid authority per
/// <see cref="SnapperOptions.ActTidRangeSize"/> transactions.
/// </summary>
internal sealed class TidSource(TidAuthority authority, IOptions<SnapperOptions> options)
{
    private readonly int rangeSize = options.Value.ActTidRangeSize;
    private readonly object gate = new();
    private long next;
    private long end;

    public long NextActTid()
    {
        lock (gate)
        {
            if (next == end)
            {
                var range = authority.AllocateRange(rangeSize);
                next = range.First;
                end = range.First + range.Count;
            }

            return next++;
        }
    }
}

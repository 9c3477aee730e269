using Microsoft.Extensions.Logging;
using Snapper.Diagnostics;

namespace Snapper.Logging.FileStorage;

/// <summary>
/// The fence (<see cref="LogFence"/>) as one log's writer sees it: the incarnation it writes as,
/// and, after each group's fsync, whether a failover has fenced that incarnation and where what
/// counts of its appends ends. Owned by the log's <see cref="SegmentLog"/>, used on its disk thread.
/// </summary>
internal sealed class FenceWatch
{
    private static readonly TimeSpan EndPatience = TimeSpan.FromSeconds(30);
    private static readonly TimeSpan EndPoll = TimeSpan.FromMilliseconds(10);
    private readonly string log;
    private readonly string directory;
    private readonly string owner;

    private FenceWatch(string log, string directory, string owner) => (this.log, this.directory, this.owner) = (log, directory, owner);

    /// <summary>
    /// Makes <paramref name="claimant"/> the log's owner, under the fence lock so that no failover
    /// fences the log meanwhile: what a fenced earlier owner appended past its fence is cut off (it
    /// never counted), the fence goes, and the owner is recorded. The caller holds the log's
    /// <see cref="LogLock"/>, so that earlier owner is dead.
    /// </summary>
    public static async Task<FenceWatch> ClaimAsync(string log, string directory, string claimant, ILogger diagnostics, CancellationToken cancellationToken)
    {
        using (await LogFence.LockAsync(log, directory, cancellationToken).ConfigureAwait(false))
        {
            if (LogFence.Read(directory) is { } fence)
            {
                if (fence.Through is { } through)
                {
                    LogFence.CutAt(log, directory, through);
                }

                // Without an end, the fencer stopped half way; nothing more of the fenced owner can
                // come (it is dead), and all it wrote counts.
                LogFence.Delete(directory);
                LogMessages.FenceCleared(diagnostics, log, fence.Owner, fence.Through?.ToString() ?? "none");
            }

            LogFence.WriteOwner(directory, claimant);
        }

        return new FenceWatch(log, directory, claimant);
    }

    /// <summary>
    /// After a group ending at <paramref name="end"/> is durable, before anyone is told: false if no
    /// fence names this owner; true if one does and the group counts (the failover read it; nothing
    /// may follow it). Throws <see cref="LogFencedException"/> if the group does not count, or if the
    /// fence names no end within a bound (then nobody may be told anything about the group). A stat
    /// per group, beside an fsync.
    /// </summary>
    public bool Fenced(LogPosition end)
    {
        if (!File.Exists(LogFence.FencePath(directory)))
        {
            return false;
        }

        var deadline = DateTime.UtcNow + EndPatience;
        while (LogFence.Read(directory) is { } fence && fence.Owner == owner)
        {
            if (fence.Through is { } through)
            {
                return end <= through
                    ? true
                    : throw new LogFencedException($"Log '{log}' was fenced at {through} by the failover of its owner {owner}; a group ending at {end} does not count.");
            }

            if (DateTime.UtcNow > deadline)
            {
                throw new LogFencedException($"Log '{log}' is being fenced (its owner {owner} was declared dead), and the fence named no end within {EndPatience.TotalSeconds:0} s: whether a group ending at {end} counts is unknown.", mayHaveCounted: true);
            }

            Thread.Sleep(EndPoll); // the log's own thread (DiskThread): only this log waits on it
        }

        return false;
    }

    /// <summary>The refusal of an append made after the log was fenced.</summary>
    public LogFencedException Refusal() => new($"Log '{log}' was fenced: its owner {owner} was declared dead and failed over.");
}

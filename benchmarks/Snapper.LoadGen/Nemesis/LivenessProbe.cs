using System.Diagnostics;

namespace Snapper.LoadGen.Nemesis;

/// <summary>
/// After a mode's window and drain, reads every actor of the mode once, a few at a time, and
/// reports the slowest answer: once the nemesis stops, every actor should answer within a second.
/// </summary>
public static class LivenessProbe
{
    /// <summary>How long one read may take before it counts as failed.</summary>
    public static readonly TimeSpan Patience = TimeSpan.FromSeconds(5);

    /// <summary>Reads in flight at once: enough to get through 10,000 actors in seconds, few enough that they do not queue behind each other.</summary>
    public const int Parallelism = 8;

    /// <summary>Runs <paramref name="read"/> for actors 0 .. <paramref name="actors"/> - 1.</summary>
    public static async Task<LivenessSummary> RunAsync(int actors, Func<int, Task> read, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(read);
        var slowestTicks = 0L;
        var (overOneSecond, failed) = (0, 0);
        string? firstFailure = null;
        await Parallel.ForAsync(0, actors, new ParallelOptions { MaxDegreeOfParallelism = Parallelism, CancellationToken = cancellationToken }, async (i, _) =>
        {
            var started = Stopwatch.GetTimestamp();
            try
            {
                await read(i).WaitAsync(Patience, CancellationToken.None);
                var took = Stopwatch.GetTimestamp() - started;
                InterlockedMax(ref slowestTicks, took);
                if (took > Stopwatch.Frequency)
                {
                    Interlocked.Increment(ref overOneSecond);
                }
            }
#pragma warning disable CA1031 // Any failed read is a failed probe of that actor, counted with its cause.
            catch (Exception e)
#pragma warning restore CA1031
            {
                Interlocked.Increment(ref failed);
                Interlocked.CompareExchange(ref firstFailure, $"actor {i}: {e.GetType().Name}: {e.Message.Split('\n')[0]}", null);
            }
        });

        return new LivenessSummary(actors, slowestTicks * 1000.0 / Stopwatch.Frequency, overOneSecond, failed, firstFailure);
    }

    private static void InterlockedMax(ref long target, long value)
    {
        var current = Volatile.Read(ref target);
        while (value > current)
        {
            var seen = Interlocked.CompareExchange(ref target, value, current);
            if (seen == current)
            {
                return;
            }

            current = seen;
        }
    }
}

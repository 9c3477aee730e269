using System.Diagnostics;

namespace Snapper.LoadGen.Measurement;

/// <summary>
/// What one load loop saw. Written only by its loop (no locks, no interlocked operations in the
/// hot path); the progress reporter reads the totals racily, which is fine for a progress line,
/// and the final merge runs after the loop has finished.
/// </summary>
public sealed class LoopRecorder
{
    private readonly MeasurementWindow window;
    private long totalCommitted;
    private long totalFailed;

    // Aborts that are not failures, counted apart rather than derived from the total so that the
    // failure stop can tell "only failures this second" from counters read one after another
    // while the loop keeps recording (a difference of two racy sums is not).
    private long totalOtherAborts;

    /// <summary>A recorder for one loop of <paramref name="window"/>; <paramref name="epochs"/> one-second buckets.</summary>
    public LoopRecorder(MeasurementWindow window, int epochs)
    {
        ArgumentNullException.ThrowIfNull(window);
        this.window = window;
        EpochCommits = new long[epochs];
        CommitSlots = new bool[epochs * SlotsPerSecond];
    }

    /// <summary>Slots a second of <see cref="CommitSlots"/> is cut into: the resolution of the longest window with no commit.</summary>
    public const int SlotsPerSecond = 100;

    /// <summary>Committed since load start, warm-up included (progress only).</summary>
    public long TotalCommitted => Volatile.Read(ref totalCommitted);

    /// <summary>Aborted since load start, warm-up included (progress only).</summary>
    public long TotalAborted => Volatile.Read(ref totalOtherAborts) + Volatile.Read(ref totalFailed);

    /// <summary>Aborted for a <see cref="AbortReason.Failure"/> or an error since load start (progress and the failure stop).</summary>
    public long TotalFailed => Volatile.Read(ref totalFailed);

    /// <summary>Aborted for any reason but a failure since load start (the failure stop).</summary>
    public long TotalOtherAborts => Volatile.Read(ref totalOtherAborts);

    /// <summary>Committed inside the window.</summary>
    public long Committed { get; private set; }

    /// <summary>Aborted inside the window.</summary>
    public long Aborted { get; private set; }

    /// <summary>Aborts inside the window by <see cref="AbortSlots"/> slot.</summary>
    public long[] AbortsBySlot { get; } = new long[AbortSlots.Count];

    /// <summary>Latencies of the transactions committed inside the window, in ms, unsorted.</summary>
    public List<double> LatenciesMs { get; } = new(1024);

    /// <summary>Committed after the window ended (while draining).</summary>
    public long LateCommitted { get; private set; }

    /// <summary>Aborts after the window ended (while draining), by <see cref="AbortSlots"/> slot.</summary>
    public long[] LateAbortsBySlot { get; } = new long[AbortSlots.Count];

    /// <summary>Commits per second of the window (bucket i = second i after measuring started).</summary>
    public long[] EpochCommits { get; }

    /// <summary>Whether a transaction committed in each 1/<see cref="SlotsPerSecond"/> s of the window (slot i from i/100 s after measuring started).</summary>
    public bool[] CommitSlots { get; }

    /// <summary>Records one transaction that started at <paramref name="started"/> and finished now.</summary>
    /// <param name="started">Its start, in <see cref="Stopwatch"/> ticks.</param>
    /// <param name="abortSlot">-1 if it committed, else its <see cref="AbortSlots"/> slot.</param>
    public void Record(long started, int abortSlot)
    {
        var finished = Stopwatch.GetTimestamp();
        if (abortSlot < 0)
        {
            Volatile.Write(ref totalCommitted, totalCommitted + 1);
        }
        else if (AbortSlots.IsFailure(abortSlot))
        {
            Volatile.Write(ref totalFailed, totalFailed + 1);
        }
        else
        {
            Volatile.Write(ref totalOtherAborts, totalOtherAborts + 1);
        }

        if (finished >= window.End)
        {
            // Finished while draining: not measured, but kept to explain a slow drain.
            if (abortSlot >= 0)
            {
                LateAbortsBySlot[abortSlot]++;
            }
            else
            {
                LateCommitted++;
            }

            return;
        }

        if (finished < window.Start)
        {
            return;
        }

        if (abortSlot >= 0)
        {
            Aborted++;
            AbortsBySlot[abortSlot]++;
            return;
        }

        Committed++;
        LatenciesMs.Add((finished - started) * 1000.0 / Stopwatch.Frequency);
        var epoch = (int)((finished - window.Start) / Stopwatch.Frequency);
        if (epoch < EpochCommits.Length)
        {
            EpochCommits[epoch]++;
        }

        var slot = (finished - window.Start) * SlotsPerSecond / Stopwatch.Frequency;
        if (slot < CommitSlots.Length)
        {
            CommitSlots[slot] = true;
        }
    }
}

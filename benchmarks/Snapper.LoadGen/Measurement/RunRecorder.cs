using MathNet.Numerics.Statistics;

namespace Snapper.LoadGen.Measurement;

/// <summary>
/// The recorders of one mode's loops. Each loop records into its own <see cref="LoopRecorder"/>;
/// merging (summing counters, concatenating and sorting latencies) happens once at the end so
/// the hot loop does no shared work.
/// </summary>
public sealed class RunRecorder
{
    // A trailing epoch shorter than this is dropped: its rate would be mostly noise.
    private const double MinPartialEpochSeconds = 0.5;

    private readonly List<LoopRecorder> loops = [];

    /// <summary>A recorder for <paramref name="mode"/> measured in <paramref name="window"/>.</summary>
    public RunRecorder(string mode, MeasurementWindow window, double durationSeconds)
    {
        ArgumentNullException.ThrowIfNull(window);
        Mode = mode;
        Window = window;
        EpochCount = Math.Max(1, (int)Math.Ceiling(durationSeconds));
    }

    /// <summary>The mode measured.</summary>
    public string Mode { get; }

    /// <summary>The mode's timeline.</summary>
    public MeasurementWindow Window { get; }

    /// <summary>One-second epochs the duration spans.</summary>
    public int EpochCount { get; }

    /// <summary>A recorder for one more loop.</summary>
    public LoopRecorder AddLoop()
    {
        var loop = new LoopRecorder(Window, EpochCount);
        loops.Add(loop);
        return loop;
    }

    /// <summary>Merges <paramref name="loop"/>, recorded under another recorder too (a mode's total over its kinds).</summary>
    public void Adopt(LoopRecorder loop)
    {
        ArgumentNullException.ThrowIfNull(loop);
        loops.Add(loop);
    }

    /// <summary>Committed so far, warm-up included (racy; for progress).</summary>
    public long TotalCommitted => loops.Sum(l => l.TotalCommitted);

    /// <summary>Aborted so far, warm-up included (racy; for progress).</summary>
    public long TotalAborted => loops.Sum(l => l.TotalAborted);

    /// <summary>Of <see cref="TotalAborted"/>, the failures (storage, silo, errors): see <see cref="LoopRecorder.TotalFailed"/>.</summary>
    public long TotalFailed => loops.Sum(l => l.TotalFailed);

    /// <summary>Of <see cref="TotalAborted"/>, those that are not failures: see <see cref="LoopRecorder.TotalOtherAborts"/>.</summary>
    public long TotalOtherAborts => loops.Sum(l => l.TotalOtherAborts);

    /// <summary>Merges the loops; call after every loop has finished.</summary>
    /// <param name="stillInFlight">Transactions that had not finished when the drain gave up.</param>
    /// <param name="drainSeconds">How long the in-flight transactions took to finish after the window.</param>
    public RunResult Merge(long stillInFlight, double drainSeconds)
    {
        long committed = 0, aborted = 0, lateCommitted = 0;
        var abortsBySlot = new long[AbortSlots.Count];
        var lateAbortsBySlot = new long[AbortSlots.Count];
        var epochCommits = new long[EpochCount];
        var commitSlots = new bool[EpochCount * LoopRecorder.SlotsPerSecond];
        var latencies = new List<double>(loops.Sum(l => l.LatenciesMs.Count));
        foreach (var loop in loops)
        {
            committed += loop.Committed;
            aborted += loop.Aborted;
            lateCommitted += loop.LateCommitted;
            for (var slot = 0; slot < abortsBySlot.Length; slot++)
            {
                abortsBySlot[slot] += loop.AbortsBySlot[slot];
                lateAbortsBySlot[slot] += loop.LateAbortsBySlot[slot];
            }

            for (var epoch = 0; epoch < epochCommits.Length; epoch++)
            {
                epochCommits[epoch] += loop.EpochCommits[epoch];
            }

            latencies.AddRange(loop.LatenciesMs);
            for (var slot = 0; slot < commitSlots.Length; slot++)
            {
                commitSlots[slot] |= loop.CommitSlots[slot];
            }
        }

        latencies.Sort();
        var seconds = Window.MeasuredSeconds;
        var epochs = EpochRates(epochCommits, seconds);

        var finished = committed + aborted;
        return new RunResult
        {
            Mode = Mode,
            Throughput = seconds > 0 ? committed / seconds : 0,
            Committed = committed,
            Aborted = aborted,
            AbortPercent = finished > 0 ? 100.0 * aborted / finished : 0,
            AbortReasons = ByName(abortsBySlot),
            LatencyMs = LatencySummary.Of(latencies),
            Epochs = epochs,
            EpochStdDev = epochs.Count >= 2 ? epochs.StandardDeviation() : 0,
            MeasuredSeconds = seconds,
            Completed = !Window.Interrupted && stillInFlight == 0,
            StillInFlight = stillInFlight,
            Drain = new DrainSummary(drainSeconds, lateCommitted, ByName(lateAbortsBySlot)),
            LongestNoCommitSeconds = LongestWithout(commitSlots, seconds),
        };
    }

    /// <summary>The longest stretch of the measured <paramref name="seconds"/> in which no slot saw a commit, in seconds.</summary>
    public static double LongestWithout(bool[] commitSlots, double seconds)
    {
        var measured = Math.Min(commitSlots.Length, (int)Math.Ceiling(seconds * LoopRecorder.SlotsPerSecond));
        int longest = 0, run = 0;
        for (var slot = 0; slot < measured; slot++)
        {
            run = commitSlots[slot] ? 0 : run + 1;
            longest = Math.Max(longest, run);
        }

        return Math.Min(seconds, (double)longest / LoopRecorder.SlotsPerSecond);
    }

    private static SortedDictionary<string, long> ByName(long[] bySlot)
    {
        var byName = new SortedDictionary<string, long>(StringComparer.Ordinal);
        for (var slot = 0; slot < bySlot.Length; slot++)
        {
            if (bySlot[slot] > 0)
            {
                byName[AbortSlots.NameOf(slot)] = bySlot[slot];
            }
        }

        return byName;
    }

    /// <summary>Commits per second of each epoch that lies inside the measured time.</summary>
    private static List<double> EpochRates(long[] epochCommits, double measuredSeconds)
    {
        var rates = new List<double>();
        for (var epoch = 0; epoch < epochCommits.Length; epoch++)
        {
            var length = Math.Min(1.0, measuredSeconds - epoch);
            if (length < MinPartialEpochSeconds)
            {
                break;
            }

            rates.Add(epochCommits[epoch] / length);
            if (length < 1.0)
            {
                break;
            }
        }

        return rates;
    }
}

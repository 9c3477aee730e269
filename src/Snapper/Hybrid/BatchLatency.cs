namespace Snapper.Hybrid;

/// <summary>
/// How long this silo's PACT batches take from emission to resolution, smoothed (an exponentially
/// weighted mean, weight 1/8), and the deadlock timeout that follows from it (Snapper §4.4.2).
/// </summary>
/// <remarks>
/// An ACT that waits for a batch does not know whether it waits on a cycle (PACT waits for ACT
/// waits for PACT) or on a batch that is merely slow. The cycles that can be seen are caught without
/// a timeout (a batch found behind the ACT elsewhere dooms the wait at once); the timeout is the
/// safety net for the rest, so it must not fire on an ordinary batch: it is
/// <see cref="Hosting.SnapperOptions.DeadlockTimeout"/> or <see cref="Multiple"/> times the typical
/// batch, whichever is longer, and never beyond the transaction timeout. Updated by coordinators,
/// read by actors of the same silo; races between updates lose an observation, which a mean can spare.
/// </remarks>
internal sealed class BatchLatency
{
    /// <summary>How many typical batches an ACT waits for before taking the wait for a deadlock.</summary>
    public const int Multiple = 4;

    private long smoothedTicks;

    /// <summary>The smoothed batch latency so far (zero before the first batch).</summary>
    public TimeSpan Typical => TimeSpan.FromTicks(Volatile.Read(ref smoothedTicks));

    /// <summary>A batch resolved <paramref name="latency"/> after it was emitted.</summary>
    public void Observe(TimeSpan latency)
    {
        var old = Volatile.Read(ref smoothedTicks);
        Volatile.Write(ref smoothedTicks, old == 0 ? latency.Ticks : old + ((latency.Ticks - old) / 8));
    }

    /// <summary>The deadlock timeout now: <paramref name="floor"/>, or longer while batches are slow, at most <paramref name="ceiling"/>.</summary>
    public TimeSpan DeadlockTimeout(TimeSpan floor, TimeSpan ceiling)
    {
        var scaled = Typical * Multiple;
        return scaled <= floor ? floor : scaled < ceiling ? scaled : ceiling;
    }
}

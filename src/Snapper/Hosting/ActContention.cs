namespace Snapper.Hosting;

/// <summary>
/// How the ACTs of one call site (one <c>RunAct</c> body) fare on this client, as moving averages:
/// how often the first attempt loses its race (aborts for a concurrency reason), and how many runs
/// an ACT that started as a promoted PACT took to commit. While most first attempts lose, a new ACT
/// starts as a promoted PACT at once, declaring its first actor and the actors its call names
/// (<see cref="Grains.NamedActors"/>), and learning any others from refused calls: such a run costs
/// about what a PACT does, far less than an ACT attempt that locks, waits and aborts on every actor
/// it reached. Each round of calls the body makes one after another beyond those named costs a
/// refused run, so where that has taken more than <see cref="MaxPromotedRuns"/> runs, racing as an
/// ACT (which reaches most of its actors before it loses) stays the start. One in
/// <see cref="SampleEvery"/> starting promoted still races as an ACT, so the loss rate stays current
/// (seldom: under skew that attempt costs several promoted runs), and one in
/// <see cref="PromotedSampleEvery"/> racing for the second reason starts promoted, so the runs do
/// (as seldom: a body's rounds of calls seldom change, and such a start costs them all).
/// </summary>
/// <remarks>Read and written by every caller at once without a lock: a lost update only slows an average.</remarks>
internal sealed class ActContention
{
    /// <summary>Above this share of first attempts lost, starting promoted is considered.</summary>
    public const double Threshold = 0.5;

    /// <summary>While ACTs start promoted, one in this many still races as an ACT.</summary>
    public const int SampleEvery = 64;

    /// <summary>While ACTs race because promoted starts took too many runs, one in this many starts promoted.</summary>
    public const int PromotedSampleEvery = 64;

    /// <summary>Runs per commit above which starting promoted is no longer chosen: the body's calls come in rounds.</summary>
    public const double MaxPromotedRuns = 2.5;

    private const double Weight = 1.0 / 32;
    private double lossRate;
    private double promotedRuns = double.NaN; // not measured yet
    private long started;
    private bool readsContextEarly;

    /// <summary>
    /// Whether this call site's body reads its context's tid or batch before its call is sent: its
    /// promoted runs are then placed up front, declaring only what they know, since a run placed as
    /// its call is sent has neither until then.
    /// </summary>
    public bool PlacesUpFront => Volatile.Read(ref readsContextEarly);

    /// <summary>The moving share of first attempts that lost their race.</summary>
    public double LossRate => Volatile.Read(ref lossRate);

    /// <summary>Whether the ACT starting now should start as a promoted PACT.</summary>
    public bool PromoteAtOnce()
    {
        if (LossRate < Threshold)
        {
            return false;
        }

        // Not measured yet: tried (NaN compares false).
        var promotedCheap = !(Volatile.Read(ref promotedRuns) > MaxPromotedRuns);
        var sample = Interlocked.Increment(ref started) % (promotedCheap ? SampleEvery : PromotedSampleEvery) == 0;
        return promotedCheap != sample;
    }

    /// <summary>A body of this call site read its context's tid or batch before its call was sent.</summary>
    public void ReadContextEarly() => Volatile.Write(ref readsContextEarly, true);

    /// <summary>An ACT's first attempt ended: <paramref name="lostRace"/> if it aborted for a concurrency reason.</summary>
    public void FirstAttemptEnded(bool lostRace) => Average(ref lossRate, lostRace ? 1 : 0);

    /// <summary>An ACT that started as a promoted PACT committed on run <paramref name="runs"/>, or gave up after them (it then races as an ACT).</summary>
    public void PromotedEnded(int runs) => Average(ref promotedRuns, runs);

    private static void Average(ref double average, double sample)
    {
        var current = Volatile.Read(ref average);
        Volatile.Write(ref average, double.IsNaN(current) ? sample : current + (Weight * (sample - current)));
    }
}

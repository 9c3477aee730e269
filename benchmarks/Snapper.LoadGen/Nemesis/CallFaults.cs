namespace Snapper.LoadGen.Nemesis;

/// <summary>
/// The call-level faults of <c>--nemesis delay</c> and <c>timeout</c>, shared by the filters on
/// every embedded silo and switched on by the <see cref="NemesisLoop"/> for the measured window
/// only. The filters ask it whether to delay or hold a call, and it counts what they did.
/// </summary>
public sealed class CallFaults
{
    /// <summary><c>delay</c>: the share of grain calls delayed before they are sent.</summary>
    public const double DelayShare = 0.05;

    /// <summary><c>delay</c>: the shortest and longest delay, in milliseconds.</summary>
    public const int MinDelayMs = 5, MaxDelayMs = 300;

    /// <summary><c>timeout</c>: the share of answers held past <see cref="ResponseTimeout"/>.</summary>
    public const double LateShare = 0.005;

    /// <summary>
    /// <c>timeout</c>: Orleans' response timeout for the whole run (30 s by default), so that the
    /// answers held past it arrive after their caller gave up on them.
    /// </summary>
    public static readonly TimeSpan ResponseTimeout = TimeSpan.FromSeconds(2);

    private volatile bool on;
    private long delayed;
    private long heldLate;
    private long timedOut;

    /// <summary>The faults <paramref name="faults"/> (<c>--nemesis</c>) turn on at the call level.</summary>
    public CallFaults(IReadOnlyCollection<string> faults)
    {
        ArgumentNullException.ThrowIfNull(faults);
        Delay = faults.Contains(NemesisFaults.Delay);
        Late = faults.Contains(NemesisFaults.Timeout);
    }

    /// <summary>Whether calls are delayed (<c>delay</c>).</summary>
    public bool Delay { get; }

    /// <summary>Whether the response timeout is lowered and answers are held past it (<c>timeout</c>).</summary>
    public bool Late { get; }

    /// <summary>Whether any call-level fault was asked for: if not, no filter is installed.</summary>
    public bool Any => Delay || Late;

    /// <summary>Whether the faults act now (the measured window of a mode).</summary>
    public bool On => on;

    /// <summary>Calls delayed, answers held past the response timeout, and calls that timed out at their caller, since the last <see cref="Reset"/>.</summary>
    public (long Delayed, long HeldLate, long TimedOut) Counts => (Interlocked.Read(ref delayed), Interlocked.Read(ref heldLate), Interlocked.Read(ref timedOut));

    /// <summary>Starts acting on calls.</summary>
    public void Start() => on = true;

    /// <summary>Stops acting on calls (the calls already delayed or held finish their wait).</summary>
    public void Stop() => on = false;

    /// <summary>Clears the counts (a new mode begins).</summary>
    public void Reset()
    {
        Interlocked.Exchange(ref delayed, 0);
        Interlocked.Exchange(ref heldLate, 0);
        Interlocked.Exchange(ref timedOut, 0);
    }

    /// <summary>How long to delay the call about to be sent, or null to send it now; counts a delay.</summary>
    public TimeSpan? NextDelay()
    {
        if (!on || !Delay || Random.Shared.NextDouble() >= DelayShare)
        {
            return null;
        }

        Interlocked.Increment(ref delayed);
        return TimeSpan.FromMilliseconds(Random.Shared.Next(MinDelayMs, MaxDelayMs + 1));
    }

    /// <summary>How long to hold the answer of the call just served, past the response timeout, or null to answer now; counts a hold.</summary>
    public TimeSpan? NextHold()
    {
        if (!on || !Late || Random.Shared.NextDouble() >= LateShare)
        {
            return null;
        }

        Interlocked.Increment(ref heldLate);
        return ResponseTimeout + TimeSpan.FromMilliseconds(Random.Shared.Next(200, 1001));
    }

    /// <summary>Counts a call whose answer did not come within the response timeout.</summary>
    public void CountTimeout() => Interlocked.Increment(ref timedOut);
}

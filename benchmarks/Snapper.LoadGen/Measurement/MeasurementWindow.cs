using System.Diagnostics;

namespace Snapper.LoadGen.Measurement;

/// <summary>
/// The timeline of one mode, in <see cref="Stopwatch"/> ticks: load starts, measuring starts after
/// the warm-up, measuring ends after the duration, or earlier when the run is interrupted. A
/// transaction counts if it completes inside [start, end).
/// </summary>
public sealed class MeasurementWindow
{
    private readonly object gate = new();
    private long start;
    private long end;
    private long plannedEnd;
    private volatile bool stopIssuing;

    /// <summary>Opens the window <paramref name="warmup"/> after now, for <paramref name="duration"/>.</summary>
    public MeasurementWindow(TimeSpan warmup, TimeSpan duration)
    {
        LoadStart = Stopwatch.GetTimestamp();
        start = LoadStart + ToTicks(warmup);
        end = start + ToTicks(duration);
        plannedEnd = end;
    }

    /// <summary>When the loops started.</summary>
    public long LoadStart { get; }

    /// <summary>When measuring starts (after the warm-up, and any extension of it: <see cref="TryPostpone"/>).</summary>
    public long Start => Volatile.Read(ref start);

    /// <summary>Seconds of load before measuring: the warm-up asked for plus any extension.</summary>
    public double WarmupSeconds => (Start - LoadStart) / (double)Stopwatch.Frequency;

    /// <summary>When measuring ends: the planned end, or the moment of interruption.</summary>
    public long End => Volatile.Read(ref end);

    /// <summary>The end the duration asked for, counted from <see cref="Start"/>.</summary>
    public long PlannedEnd => Volatile.Read(ref plannedEnd);

    /// <summary>True once the loops must stop starting transactions.</summary>
    public bool StopIssuing => stopIssuing;

    /// <summary>True if <see cref="Interrupt"/> cut the window short.</summary>
    public bool Interrupted { get; private set; }

    /// <summary>Seconds measured: from start to end, 0 if the run stopped during the warm-up.</summary>
    public double MeasuredSeconds => Math.Max(0, End - Start) / (double)Stopwatch.Frequency;

    /// <summary>Stops issuing; the in-flight transactions still complete (and count if inside the window).</summary>
    public void StopAtPlannedEnd() => stopIssuing = true;

    /// <summary>Ends the window now (Ctrl+C): completions from here on are not measured.</summary>
    public void Interrupt()
    {
        lock (gate)
        {
            var now = Stopwatch.GetTimestamp();
            if (now < end)
            {
                Volatile.Write(ref end, Math.Max(now, start));
                Interrupted = true;
            }

            stopIssuing = true;
        }
    }

    /// <summary>
    /// Moves the whole window <paramref name="by"/> later, so the warm-up lasts that much longer;
    /// false once measuring is less than <paramref name="notice"/> away (or interrupted). With that
    /// notice, no transaction has been counted yet: every one that finished did so before the old start.
    /// </summary>
    public bool TryPostpone(TimeSpan by, TimeSpan notice)
    {
        lock (gate)
        {
            if (stopIssuing || Stopwatch.GetTimestamp() + ToTicks(notice) > start)
            {
                return false;
            }

            var ticks = ToTicks(by);
            Volatile.Write(ref start, start + ticks);
            Volatile.Write(ref end, end + ticks);
            Volatile.Write(ref plannedEnd, plannedEnd + ticks);
            return true;
        }
    }

    /// <summary>Seconds since the loops started.</summary>
    public double Elapsed => Stopwatch.GetElapsedTime(LoadStart).TotalSeconds;

    /// <summary>Converts a duration to <see cref="Stopwatch"/> ticks.</summary>
    public static long ToTicks(TimeSpan span) => (long)(span.TotalSeconds * Stopwatch.Frequency);
}

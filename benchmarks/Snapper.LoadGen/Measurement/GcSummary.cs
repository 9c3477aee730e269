using System.Diagnostics;

namespace Snapper.LoadGen.Measurement;

/// <summary>
/// The garbage collections of this process while a mode was measured. With embedded silos the
/// silos' GC is this process's: a collection pauses every transaction in flight, so a long pause
/// shows up in the latency tail (p99) before it shows in throughput.
/// </summary>
/// <param name="PausePercent">Time paused for collections, as a percentage of the measured time.</param>
/// <param name="Gen0">Collections of generation 0 alone.</param>
/// <param name="Gen1">Collections of generation 1 (with 0), not full ones.</param>
/// <param name="Gen2">Full collections.</param>
/// <param name="MeanPauseMs">Paused time per collection.</param>
public sealed record GcSummary(double PausePercent, int Gen0, int Gen1, int Gen2, double MeanPauseMs)
{
    /// <summary>What the collector (and the process's CPU: <see cref="CpuSummary"/>) has done so far, to subtract from a later <see cref="Sample"/>.</summary>
    public readonly record struct Sample(long Timestamp, TimeSpan Paused, int Gen0, int Gen1, int Gen2, TimeSpan Cpu)
    {
        /// <summary>Now.</summary>
        public static Sample Take()
        {
            using var process = Process.GetCurrentProcess();
            return new(Stopwatch.GetTimestamp(), GC.GetTotalPauseDuration(), GC.CollectionCount(0), GC.CollectionCount(1), GC.CollectionCount(2), process.TotalProcessorTime);
        }
    }

    /// <summary>
    /// This process's collector settings, for the report: server or workstation, DATAS, and the
    /// generation-0 budget floor if <c>DOTNET_GCgen0size</c> sets one (LoadGen's launch profile does:
    /// see README, "Figures").
    /// </summary>
    public static string Settings()
    {
        var datas = AppContext.GetData("System.GC.DynamicAdaptationMode") is { } mode && Convert.ToInt32(mode, System.Globalization.CultureInfo.InvariantCulture) == 0 ? "DATAS off" : "DATAS on";
        var floor = Environment.GetEnvironmentVariable("DOTNET_GCgen0size") is { Length: > 0 } size ? $", generation 0 at least {size} bytes (DOTNET_GCgen0size)" : "";
        return System.Runtime.GCSettings.IsServerGC ? $"server, {datas}{floor}" : $"workstation{floor}";
    }

    /// <summary>The collections between <paramref name="from"/> and <paramref name="to"/>.</summary>
    public static GcSummary Between(Sample from, Sample to)
    {
        var seconds = Math.Max(1e-9, (to.Timestamp - from.Timestamp) / (double)Stopwatch.Frequency);
        var paused = (to.Paused - from.Paused).TotalMilliseconds;

        // CollectionCount(n) counts every collection of generation n or higher.
        var gen2 = to.Gen2 - from.Gen2;
        var gen1 = to.Gen1 - from.Gen1 - gen2;
        var gen0 = to.Gen0 - from.Gen0 - gen1 - gen2;
        var collections = gen0 + gen1 + gen2;
        return new GcSummary(100 * paused / 1000 / seconds, gen0, gen1, gen2, collections > 0 ? paused / collections : 0);
    }
}

namespace Snapper.LoadGen.Measurement;

/// <summary>
/// The CPU this process used while a mode was measured: with embedded silos, the silos' and the
/// load's together. What it leaves out is the point when comparing loggers on one machine: a
/// storage emulator (Azurite) runs in a process of its own, so the silo's cost per transaction can
/// be told apart from the cores the emulator takes from it.
/// </summary>
/// <param name="Cores">CPU time over wall time: 2.0 is two cores busy for the whole window.</param>
public sealed record CpuSummary(double Cores)
{
    /// <summary>The CPU used between <paramref name="from"/> and <paramref name="to"/>.</summary>
    public static CpuSummary Between(GcSummary.Sample from, GcSummary.Sample to)
    {
        var seconds = Math.Max(1e-9, (to.Timestamp - from.Timestamp) / (double)System.Diagnostics.Stopwatch.Frequency);
        return new CpuSummary((to.Cpu - from.Cpu).TotalSeconds / seconds);
    }

    /// <summary>Microseconds of CPU per committed transaction at <paramref name="throughput"/> commits a second.</summary>
    public double MicrosecondsPer(double throughput) => throughput > 0 ? Cores * 1e6 / throughput : 0;
}

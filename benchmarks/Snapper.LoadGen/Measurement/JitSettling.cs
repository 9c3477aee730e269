using System.Runtime;

namespace Snapper.LoadGen.Measurement;

/// <summary>
/// Whether the JIT is still compiling hot code. A process's first tens of seconds under load are
/// spent tiering methods up (tier 0, instrumented, then optimized: on two cores the background
/// compiler competes with the load), and a mode measured then measures the JIT. The warm-up is
/// extended, a second at a time, while the last second compiled for longer than
/// <see cref="SettledBelow"/> (<see cref="LoadGenOptions.JitSettleSeconds"/> bounds it).
/// </summary>
public sealed class JitSettling
{
    /// <summary>JIT time per second of load under which the JIT counts as settled (1% of a core).</summary>
    public static readonly TimeSpan SettledBelow = TimeSpan.FromMilliseconds(10);

    private TimeSpan total = JitInfo.GetCompilationTime();

    /// <summary>Takes a sample (once a second); true if the JIT compiled at least <see cref="SettledBelow"/> since the last one.</summary>
    public bool StillCompiling()
    {
        var now = JitInfo.GetCompilationTime(); // on every thread
        var lastSecond = now - total;
        total = now;
        return lastSecond >= SettledBelow;
    }
}

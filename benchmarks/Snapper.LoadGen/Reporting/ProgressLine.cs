using System.Globalization;
using Snapper.LoadGen.Measurement;

namespace Snapper.LoadGen.Reporting;

/// <summary>The once-a-second progress line on stderr: mode, phase, elapsed, commits and aborts so far.</summary>
public static class ProgressLine
{
    /// <summary>The line for <paramref name="recorder"/> now.</summary>
    public static string For(RunRecorder recorder, double warmupSeconds, double durationSeconds)
    {
        ArgumentNullException.ThrowIfNull(recorder);
        var elapsed = recorder.Window.Elapsed;
        var phase = elapsed < warmupSeconds ? "warm-up" : "measure";
        return string.Create(
            CultureInfo.InvariantCulture,
            $"[{recorder.Mode}] {phase} {elapsed,5:F1}s/{warmupSeconds + durationSeconds:0.#}s  committed {recorder.TotalCommitted,10:N0}  aborted {recorder.TotalAborted,8:N0}");
    }
}

using System.Globalization;
using Snapper.LoadGen.Measurement;
using Spectre.Console;

namespace Snapper.LoadGen.Reporting;

/// <summary>
/// A mode's progress once a second: phase, elapsed of warm-up plus measurement, throughput over the
/// last second, commits and aborts so far. A live Spectre.Console progress bar on a terminal; a
/// plain line on stderr anywhere else, so CI logs stay readable.
/// </summary>
public static class ProgressLine
{
    /// <summary>The plain line for <paramref name="recorder"/> now; <paramref name="perSecond"/> is the last second's commits.</summary>
    public static string For(RunRecorder recorder, double warmupSeconds, double durationSeconds, long perSecond)
    {
        ArgumentNullException.ThrowIfNull(recorder);
        var elapsed = recorder.Window.Elapsed;
        warmupSeconds = WarmupOf(recorder, warmupSeconds);
        return string.Create(
            CultureInfo.InvariantCulture,
            $"[{recorder.Mode}] {Phase(elapsed, warmupSeconds)} {elapsed,5:F1}s/{warmupSeconds + durationSeconds:0.#}s  {perSecond,9:N0} txn/s  committed {recorder.TotalCommitted,10:N0}  aborted {recorder.TotalAborted,8:N0}");
    }

    /// <summary>
    /// Runs one mode through <paramref name="run"/>, which reports each second's recorder to the
    /// callback it is given, and shows the progress on <paramref name="stderr"/>.
    /// </summary>
    public static async Task<T> ShowAsync<T>(TextWriter stderr, bool terminal, string mode, double warmupSeconds, double durationSeconds, Func<Action<RunRecorder>, Task<T>> run)
    {
        ArgumentNullException.ThrowIfNull(stderr);
        ArgumentNullException.ThrowIfNull(run);
        var last = 0L;
        long PerSecond(RunRecorder recorder)
        {
            var now = recorder.TotalCommitted;
            var delta = now - last;
            last = now;
            return delta;
        }

        if (!terminal)
        {
            return await run(recorder => stderr.WriteLine(For(recorder, warmupSeconds, durationSeconds, PerSecond(recorder))));
        }

        var console = Terminal.Console(stderr, terminal: true);
        return await console.Progress()
            .AutoClear(false)
            .Columns(new TaskDescriptionColumn { Alignment = Justify.Left }, new ProgressBarColumn { Width = 20 })
            .StartAsync(async context =>
            {
                var task = context.AddTask(Markup.Escape($"[{mode}] warm-up"), maxValue: warmupSeconds + durationSeconds);
                var result = await run(recorder =>
                {
                    var elapsed = recorder.Window.Elapsed;
                    var warmup = WarmupOf(recorder, warmupSeconds);
                    task.MaxValue = warmup + durationSeconds;
                    task.Value = Math.Min(elapsed, task.MaxValue);
                    task.Description = Markup.Escape(string.Create(
                        CultureInfo.InvariantCulture,
                        $"[{mode}] {Phase(elapsed, warmup)} {elapsed:F0}/{task.MaxValue:0.#}s: {PerSecond(recorder):N0} txn/s, {recorder.TotalCommitted:N0} committed, {recorder.TotalAborted:N0} aborted"));
                });
                task.Value = task.MaxValue;
                task.StopTask();
                return result;
            });
    }

    // The warm-up asked for, or longer once the window was postponed while the JIT compiled.
    private static double WarmupOf(RunRecorder recorder, double asked) => Math.Max(asked, recorder.Window.WarmupSeconds);

    private static string Phase(double elapsed, double warmupSeconds) => elapsed < warmupSeconds ? "warm-up" : "measure";
}

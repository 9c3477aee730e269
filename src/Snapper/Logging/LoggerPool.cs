using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;
using Snapper.Diagnostics;
using Snapper.Hosting;

namespace Snapper.Logging;

/// <summary>
/// The silo's loggers (Snapper §4.1.1). Each actor writes through the logger its id hashes to, so
/// the records of many actors share each group commit. With <see cref="LoggingMode.None"/> there
/// are no loggers and <see cref="For"/> returns null: nothing is persisted.
/// </summary>
internal sealed class LoggerPool
{
    private readonly Logger[] loggers;

    public LoggerPool(IOptions<SnapperOptions> options, ILogStorage storage, SnapperMetrics metrics, TimeProvider clock, ILoggerFactory loggerFactory)
    {
        var settings = options.Value;
        var diagnostics = loggerFactory.CreateLogger("Snapper.Logging");
        if (settings.LogWriteDelay > TimeSpan.Zero)
        {
            storage = new DelayedLogStorage(storage, settings.LogWriteDelay, clock);
        }

        loggers = settings.Logging == LoggingMode.None
            ? []
            : Enumerable.Range(0, settings.LoggerCount).Select(i => new Logger(LogName(i), storage, metrics, diagnostics)).ToArray();
    }

    public bool Enabled => loggers.Length > 0;

    /// <summary>The name of logger <paramref name="index"/>'s log in the storage.</summary>
    public static string LogName(int index) => $"snapper-log-{index}";

    /// <summary>The logger of <paramref name="actor"/>, or null when logging is off.</summary>
    public Logger? For(ActorId actor) => loggers.Length == 0 ? null : loggers[StableHash.Of(actor) % (ulong)loggers.Length];
}

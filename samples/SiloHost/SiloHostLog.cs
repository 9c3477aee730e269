using Microsoft.Extensions.Logging;
using Snapper.LoadGen.Cluster;

namespace SiloHost;

/// <summary>
/// SiloHost's log on stderr (stdout carries only what SiloHost itself says): one line a record,
/// <c>HH:mm:ss level: category[event] message</c>, an exception as its type and first line, or
/// whole with <c>--verbose</c>. While the silo starts, records are held: once it serves they are
/// written, less Orleans' false Watchdog alarm (<see cref="StartupFalseAlarm"/>); if it fails to
/// start, SiloHost's one-line error stands for them. Once the silo stops, Orleans' lines about each
/// message it could no longer deliver (to grains already gone, with no silo left to place them on)
/// are counted, not written, and so are its lines saying that the stop ran out of the host's
/// shutdown bound (SiloHost then says so in its last line). With <c>--verbose</c> nothing is held
/// and nothing counted.
/// </summary>
internal sealed class SiloHostLog(TextWriter writer, bool verbose) : ILoggerProvider
{
    private readonly Lock gate = new();
    private readonly List<string> held = [];
    private Phase phase = verbose ? Phase.Writing : Phase.Holding;
    private bool siloServing;

    private enum Phase
    {
        Holding, // the silo starts: records wait for how the start ends
        Writing,
        Dropping, // the silo did not start: the one-line error stands for the records
        Stopping, // written, less the undeliverable messages, which are counted
    }

    private int undelivered;
    private int cutShort;

    public ILogger CreateLogger(string categoryName) => new Logger(this, categoryName);

    /// <summary>The silo serves: what was held is written, and from now on every record.</summary>
    public void Serving() => Enter(Phase.Writing, serving: true);

    /// <summary>The silo did not start: what was held is dropped (unless <c>--verbose</c>, which held nothing).</summary>
    public void StartFailed() => Enter(verbose ? Phase.Writing : Phase.Dropping, serving: false);

    /// <summary>The silo stops: from now on Orleans' lines about messages it cannot deliver are only counted.</summary>
    public void Stopping()
    {
        lock (gate)
        {
            phase = phase == Phase.Writing && !verbose ? Phase.Stopping : phase;
        }
    }

    /// <summary>How many of Orleans' lines about undeliverable messages and slow stop stages the stop left out.</summary>
    public int Undelivered
    {
        get
        {
            lock (gate)
            {
                return undelivered;
            }
        }
    }

    /// <summary>How many of Orleans' lines said that the stop ran out of the host's shutdown bound (and were left out).</summary>
    public int CutShort
    {
        get
        {
            lock (gate)
            {
                return cutShort;
            }
        }
    }

    public void Dispose()
    {
    }

    private void Enter(Phase next, bool serving)
    {
        lock (gate)
        {
            (phase, siloServing) = (next, serving);
            if (next == Phase.Writing)
            {
                held.ForEach(writer.WriteLine);
            }

            held.Clear();
        }
    }

    private void Write<TState>(string category, LogLevel level, EventId eventId, TState state, Exception? exception, Func<TState, Exception?, string> formatter)
    {
        lock (gate)
        {
            if (phase == Phase.Dropping || StartupFalseAlarm.Is(category, level, state, siloServing))
            {
                return;
            }

            if (phase == Phase.Stopping && (StopNoise.IsUndeliverable(category, eventId) || StopNoise.IsSlowStage(category, eventId)))
            {
                undelivered++;
                return;
            }

            if (phase == Phase.Stopping && StopNoise.IsCutShort(category, eventId, exception))
            {
                cutShort++;
                return;
            }

            var line = $"{DateTime.Now:HH:mm:ss} {Name(level)}: {category}[{eventId.Id}] {formatter(state, exception)}";
            if (exception is not null)
            {
                line += verbose ? $"{Environment.NewLine}{exception}" : $" ({exception.GetType().Name}: {exception.Message.Split('\n')[0].TrimEnd()})";
            }

            if (phase == Phase.Holding)
            {
                held.Add(line);
            }
            else
            {
                writer.WriteLine(line);
            }
        }
    }

    private static string Name(LogLevel level) => level switch
    {
        LogLevel.Trace => "trce",
        LogLevel.Debug => "dbug",
        LogLevel.Information => "info",
        LogLevel.Warning => "warn",
        LogLevel.Error => "fail",
        _ => "crit",
    };

    private sealed class Logger(SiloHostLog log, string category) : ILogger
    {
        public IDisposable? BeginScope<TState>(TState state)
            where TState : notnull => null;

        public bool IsEnabled(LogLevel logLevel) => logLevel != LogLevel.None;

        public void Log<TState>(LogLevel logLevel, EventId eventId, TState state, Exception? exception, Func<TState, Exception?, string> formatter)
        {
            if (IsEnabled(logLevel))
            {
                log.Write(category, logLevel, eventId, state, exception, formatter);
            }
        }
    }
}

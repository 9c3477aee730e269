using System.Collections.Concurrent;
using Microsoft.Extensions.Logging;

namespace Snapper.LoadGen.Cluster;

/// <summary>
/// Writes the runtime's warnings and errors to a <see cref="TextWriter"/> (stderr, or a test's
/// writer): the console logger can only write to the process's own streams. A broken log directory
/// or silo fails every transaction the same way, so each distinct problem (category, event and
/// exception type) is written once, and at most <see cref="MaxDistinct"/> of them; a record whose
/// exception has the same root cause as one written already (a log stopped by a failed write, and
/// everything that could not be logged after) is not; the rest are counted and summed up by
/// <see cref="Dispose"/>. Orleans' false Watchdog alarm at start-up is
/// dropped (<see cref="StartupFalseAlarm"/>). While the silo starts, records are held: once it
/// serves they are written; if it fails to start, the one-line error stands for them, unless
/// <c>--verbose</c> asks for them. Once it stops, the records of <see cref="StopNoise"/> (a line
/// per message to a grain already gone, per grain a cut-short stop left) are dropped, unless
/// <c>--verbose</c>. An exception is its message on the record's line; its stack
/// only with <c>--verbose</c>.
/// </summary>
internal sealed class TextWriterLoggerProvider(TextWriter writer, bool verbose = false) : ILoggerProvider
{
    /// <summary>The most distinct problems written in full.</summary>
    public const int MaxDistinct = 5;

    private readonly ConcurrentDictionary<(string Category, int Event, string? Exception), long> seen = new();
    private readonly ConcurrentDictionary<string, bool> causes = new(StringComparer.Ordinal); // root causes written
    private readonly Lock gate = new();
    private readonly List<string> held = [];
    private long suppressed;
    private volatile bool serving;
    private volatile bool stopping;
    private bool holding = true;
    private bool dropping;

    public ILogger CreateLogger(string categoryName) => new TextWriterLogger(this, categoryName);

    /// <summary>The silo has started: what was held is written, and from now on every warning counts.</summary>
    public void Serving()
    {
        serving = true;
        Release(write: true);
    }

    /// <summary>The silo stops: from now on its records about messages to grains already gone, and about the stop's own bound, are dropped.</summary>
    public void Stopping() => stopping = true;

    /// <summary>The silo did not start: what was held, and what its stop logs, is written only if <paramref name="verbose"/>.</summary>
    public void StartFailed(bool verbose) => Release(write: verbose);

    private void Release(bool write)
    {
        lock (gate)
        {
            (holding, dropping) = (false, !write);
            if (write)
            {
                held.ForEach(writer.WriteLine);
            }

            held.Clear();
        }
    }

    public void Dispose()
    {
        if (Interlocked.Read(ref suppressed) is var count and > 0)
        {
            writer.WriteLine($"note: {count:N0} more runtime warnings and errors like the ones above were not shown ({seen.Count:N0} distinct).");
        }
    }

    private void Write(string category, LogLevel level, EventId eventId, string message, Exception? exception)
    {
        if (stopping && !verbose && (StopNoise.IsUndeliverable(category, eventId) || StopNoise.IsSlowStage(category, eventId) || StopNoise.IsCutShort(category, eventId, exception)))
        {
            return;
        }

        var key = (category, eventId.Id, exception?.GetType().FullName);
        var first = seen.TryAdd(key, 1);
        if (!first)
        {
            seen.AddOrUpdate(key, 1, (_, n) => n + 1);
        }

        if (!first || seen.Count > MaxDistinct || (exception is not null && !causes.TryAdd(RootCause(exception), true)))
        {
            Interlocked.Increment(ref suppressed);
            return;
        }

        var line = $"{level.ToString().ToLowerInvariant()}: {category}: {message}";
        // The exception whole (its stack) only with --verbose: otherwise what it says, on the same line.
        line = exception is null ? line : verbose ? $"{line}{Environment.NewLine}{exception}" : $"{line}: {OneLine(exception)}";
        lock (gate)
        {
            if (holding)
            {
                held.Add(line);
            }
            else if (!dropping)
            {
                writer.WriteLine(line);
            }
        }
    }

    private static string OneLine(Exception exception) => exception.Message.Split('\n')[0].TrimEnd();

    // The innermost exception, as its type and message.
    private static string RootCause(Exception exception)
    {
        while (exception.InnerException is { } inner)
        {
            exception = inner; // an AggregateException's first inner exception too
        }

        return $"{exception.GetType().FullName}: {exception.Message}";
    }

    private sealed class TextWriterLogger(TextWriterLoggerProvider provider, string category) : ILogger
    {
        public IDisposable? BeginScope<TState>(TState state)
            where TState : notnull => null;

        public bool IsEnabled(LogLevel logLevel) => logLevel >= LogLevel.Warning;

        public void Log<TState>(LogLevel logLevel, EventId eventId, TState state, Exception? exception, Func<TState, Exception?, string> formatter)
        {
            if (IsEnabled(logLevel) && !StartupFalseAlarm.Is(category, logLevel, state, provider.serving))
            {
                provider.Write(category, logLevel, eventId, formatter(state, exception), exception);
            }
        }
    }
}

using Microsoft.Extensions.Logging;

namespace Snapper.LoadGen.Cluster;

/// <summary>
/// Writes the runtime's log messages to a <see cref="TextWriter"/> (stderr, or a test's writer).
/// The console logger can only choose between the process's stdout and stderr, not a writer that
/// an in-process test hands in.
/// </summary>
internal sealed class TextWriterLoggerProvider(TextWriter writer) : ILoggerProvider
{
    public ILogger CreateLogger(string categoryName) => new TextWriterLogger(writer, categoryName);

    public void Dispose()
    {
    }

    private sealed class TextWriterLogger(TextWriter writer, string category) : ILogger
    {
        public IDisposable? BeginScope<TState>(TState state)
            where TState : notnull => null;

        public bool IsEnabled(LogLevel logLevel) => logLevel >= LogLevel.Warning;

        public void Log<TState>(LogLevel logLevel, EventId eventId, TState state, Exception? exception, Func<TState, Exception?, string> formatter)
        {
            if (!IsEnabled(logLevel))
            {
                return;
            }

            var line = $"{logLevel.ToString().ToLowerInvariant()}: {category}: {formatter(state, exception)}";
            writer.WriteLine(exception is null ? line : $"{line}{Environment.NewLine}{exception}");
        }
    }
}

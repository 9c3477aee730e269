using Microsoft.Extensions.Logging;

namespace TpcC.Diagnostics;

/// <summary>The sample's log messages, source-generated.</summary>
internal static partial class TpcCLog
{
    [LoggerMessage(EventId = 1, Level = LogLevel.Information, Message = "Loading {Database}: {Actors} actors as {Mode}s")]
    public static partial void LoadStarted(ILogger logger, string database, int actors, string mode);

    [LoggerMessage(EventId = 2, Level = LogLevel.Information, Message = "Loaded {Database}: {Actors} actors in {Milliseconds} ms")]
    public static partial void LoadFinished(ILogger logger, string database, int actors, long milliseconds);

    [LoggerMessage(EventId = 3, Level = LogLevel.Warning, Message = "{Database} breaks TPC-C consistency condition {Condition} at {Where}: {Detail}")]
    public static partial void ConsistencyViolated(ILogger logger, string database, int condition, string where, string detail);
}

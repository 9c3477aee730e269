using Microsoft.Extensions.Logging;

namespace Snapper.Logging.FileStorage;

/// <summary>The file log storage's diagnostics, source-generated.</summary>
internal static partial class FileStorageLog
{
    [LoggerMessage(EventId = 101, Level = LogLevel.Warning, Message = "Log segment {File} has a torn or corrupt tail at offset {Offset} ({Problem}); cut {Bytes} byte(s)")]
    public static partial void TailCut(ILogger logger, string file, long offset, long bytes, string problem);

    [LoggerMessage(EventId = 102, Level = LogLevel.Debug, Message = "Log {Log} started segment {File}")]
    public static partial void SegmentStarted(ILogger logger, string log, string file);

    [LoggerMessage(EventId = 103, Level = LogLevel.Information, Message = "Log {Log} deleted {Count} segment(s) before sequence {Sequence}")]
    public static partial void SegmentsDeleted(ILogger logger, string log, int count, long sequence);

    [LoggerMessage(EventId = 104, Level = LogLevel.Error, Message = "Log segment {File} could not be cut back to {Length} bytes after a failed append; a cut marker will tell recovery to")]
    public static partial void RollbackFailed(ILogger logger, Exception exception, string file, long length);

    [LoggerMessage(EventId = 105, Level = LogLevel.Warning, Message = "Log segment {File} has a cut marker: recovery cuts it back to {Length} bytes")]
    public static partial void CutMarkerWritten(ILogger logger, string file, long length);

    [LoggerMessage(EventId = 106, Level = LogLevel.Critical, Message = "Log segment {File} could neither be cut back to {Length} bytes nor marked for recovery to cut: records of a group reported as failed may be read back after a restart")]
    public static partial void CutMarkerFailed(ILogger logger, Exception exception, string file, long length);

    [LoggerMessage(EventId = 107, Level = LogLevel.Error, Message = "Log {Log} is stopped after a failed write and takes no appends until the silo restarts")]
    public static partial void LogStopped(ILogger logger, Exception exception, string log);
}

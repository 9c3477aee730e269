namespace Snapper.Configuration;

/// <summary>Where the silo's loggers persist records.</summary>
public enum LoggingMode
{
    /// <summary>No logging: nothing survives a crash. For measuring the cost of logging.</summary>
    None = 0,

    /// <summary>
    /// Whatever <see cref="Logging.ILogStorage"/> is registered: by default in process memory (for
    /// tests and measurements), or a durable storage such as Azure Table storage.
    /// </summary>
    RegisteredStorage = 1,

    /// <summary>Write-ahead log files under <see cref="SnapperOptions.LogDirectory"/>, one fsync per group commit.</summary>
    File = 2,
}

namespace Snapper.Logging.FileStorage;

/// <summary>
/// A log another process (or another storage in this one) is writing: a log takes one writer at a
/// time, and its lock (<see cref="LogLock"/>) is held. Thrown when a storage first uses the log for
/// writing, which a silo does as it starts, so a second silo on the same log refuses to start.
/// </summary>
public sealed class LogHeldException : IOException
{
    /// <summary>Log <paramref name="log"/> in the storage directory <paramref name="directory"/> is held; <paramref name="inner"/> is the lock's failure.</summary>
    public LogHeldException(string log, string directory, Exception? inner)
        : base($"Log '{log}' in '{directory}' is held by another writer (its lock file {LogLock.FileName} is locked); a log takes one writer at a time.", inner)
    {
        Log = log;
        Directory = directory;
    }

    /// <summary>The log's name (its folder under <see cref="Directory"/>).</summary>
    public string Log { get; }

    /// <summary>The storage's directory, which holds the log's folder.</summary>
    public string Directory { get; }
}

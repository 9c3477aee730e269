namespace Snapper.Logging;

/// <summary>One write-ahead log record. Encoded by <see cref="LogRecordCodec"/>.</summary>
internal abstract record LogRecord(long Tid)
{
    /// <summary>What the record says.</summary>
    public abstract LogRecordKind Kind { get; }
}

namespace Snapper.Logging.FileStorage;

/// <summary>
/// The failure for damage in a file log that a crash cannot explain (<see cref="SegmentDamage"/>):
/// a bad frame with records after it, a segment of garbage, a bad frame in a segment before the
/// last. Cutting it off could drop committed records, so nothing is cut and the log is refused
/// until the operator restores it from a backup or salvages it (<see cref="FileLogStorage.SalvageAsync"/>).
/// </summary>
internal static class LogCorruption
{
    /// <summary>
    /// An <see cref="InvalidDataException"/> of one line naming the log, the segment and the
    /// offset; the segment's path is in its <see cref="Exception.Data"/> under
    /// <see cref="FileLogStorage.DamagedSegmentKey"/>, so a host can tell it from other bad data.
    /// </summary>
    public static InvalidDataException Exception(string log, string segment, long offset, string reason)
    {
        var failure = new InvalidDataException(
            $"Log '{log}': segment '{segment}' is corrupt at offset {offset}: {reason}. Nothing was cut: restore the log from a backup, or salvage it (keep the records before the damage, move the rest aside).");
        failure.Data[FileLogStorage.DamagedSegmentKey] = segment;
        return failure;
    }
}

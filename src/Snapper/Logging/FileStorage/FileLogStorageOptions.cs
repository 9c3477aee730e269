namespace Snapper.Logging.FileStorage;

/// <summary>Where and how <see cref="FileLogStorage"/> keeps its logs.</summary>
public sealed class FileLogStorageOptions
{
    /// <summary>The smallest accepted <see cref="SegmentSizeBytes"/>: below one page, rolling would dominate.</summary>
    public const long MinSegmentSizeBytes = 4 * 1024;

    /// <summary>The root folder; each log gets a sub-folder named after it. Created on first append.</summary>
    public string Directory { get; set; } = string.Empty;

    /// <summary>
    /// A new segment file is started when appending a group would take the current one past this size.
    /// A group is never split, so a single group larger than this still lands whole in one segment.
    /// </summary>
    public long SegmentSizeBytes { get; set; } = 64L * 1024 * 1024;

    /// <summary>
    /// How far ahead of its last record a segment is filled with zeros (never past
    /// <see cref="SegmentSizeBytes"/>), so that an append overwrites space the file already has and
    /// its fsync need not record a new file size. 0 turns this off: each append then grows the file.
    /// </summary>
    public long PreallocationBytes { get; set; } = 1024 * 1024;
}

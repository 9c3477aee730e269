using System.Globalization;

namespace Snapper.Logging.FileStorage;

/// <summary>A place in a log: the byte <paramref name="Offset"/> of segment <paramref name="Segment"/>.</summary>
internal readonly record struct LogPosition(long Segment, long Offset) : IComparable<LogPosition>
{
    public int CompareTo(LogPosition other) => Segment != other.Segment ? Segment.CompareTo(other.Segment) : Offset.CompareTo(other.Offset);

    public static bool operator <=(LogPosition a, LogPosition b) => a.CompareTo(b) <= 0;

    public static bool operator >=(LogPosition a, LogPosition b) => a.CompareTo(b) >= 0;

    public static bool operator <(LogPosition a, LogPosition b) => a.CompareTo(b) < 0;

    public static bool operator >(LogPosition a, LogPosition b) => a.CompareTo(b) > 0;

    public override string ToString() => string.Create(CultureInfo.InvariantCulture, $"{Segment}:{Offset}");

    public static LogPosition Parse(string text, string source)
    {
        var parts = text.Split(':');
        return parts.Length == 2 && long.TryParse(parts[0], NumberStyles.None, CultureInfo.InvariantCulture, out var segment) && long.TryParse(parts[1], NumberStyles.None, CultureInfo.InvariantCulture, out var offset)
            ? new LogPosition(segment, offset)
            : throw new InvalidDataException($"'{source}' should hold a log position (segment:offset) but holds '{text}'.");
    }
}

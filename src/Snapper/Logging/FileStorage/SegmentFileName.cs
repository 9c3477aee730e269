using System.Globalization;

namespace Snapper.Logging.FileStorage;

/// <summary>Segment files are named <c>{sequence:D10}.wal</c>, so they also sort by name.</summary>
internal static class SegmentFileName
{
    public const string Extension = ".wal";

    private const int Digits = 10;

    public static string Of(long sequence) => sequence.ToString("D10", CultureInfo.InvariantCulture) + Extension;

    public static string PathOf(string directory, long sequence) => Path.Combine(directory, Of(sequence));

    /// <summary>The sequence numbers of the segments in <paramref name="directory"/>, ascending; none if it does not exist.</summary>
    public static long[] List(string directory)
    {
        if (!Directory.Exists(directory))
        {
            return [];
        }

        var sequences = new List<long>();
        foreach (var path in Directory.EnumerateFiles(directory, "*" + Extension))
        {
            if (TryParse(Path.GetFileName(path), out var sequence))
            {
                sequences.Add(sequence);
            }
        }

        sequences.Sort();
        return [.. sequences];
    }

    // Anything else in the folder (an operator's backup copy, say) is not a segment and is left alone.
    private static bool TryParse(string fileName, out long sequence)
    {
        sequence = 0;
        if (!fileName.EndsWith(Extension, StringComparison.Ordinal))
        {
            return false;
        }

        var stem = fileName.AsSpan(0, fileName.Length - Extension.Length);
        return stem.Length >= Digits
            && !stem.ContainsAnyExcept("0123456789")
            && long.TryParse(stem, NumberStyles.None, CultureInfo.InvariantCulture, out sequence);
    }
}

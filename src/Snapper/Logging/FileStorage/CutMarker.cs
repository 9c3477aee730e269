using System.Globalization;
using Microsoft.Extensions.Logging;
using Snapper.Diagnostics;

namespace Snapper.Logging.FileStorage;

/// <summary>
/// A small file beside a segment, <c>{sequence:D10}.cut</c>, holding the length the segment must be
/// cut back to. Written when a group's write failed and truncating the segment failed too: the
/// group's frames may still be on disk with valid checksums, but the live system treated the group
/// as failed (its transactions aborted), so recovery must not read them. A new file, not the failing
/// segment, so it has its own chance of reaching the disk.
/// </summary>
internal static class CutMarker
{
    public const string Extension = ".cut";

    public static string PathFor(string segmentPath) => Path.ChangeExtension(segmentPath, Extension);

    /// <summary>Writes the marker durably (file and directory fsynced).</summary>
    public static void Write(string segmentPath, long length)
    {
        var path = PathFor(segmentPath);
        using (var stream = new FileStream(path, FileMode.Create, FileAccess.Write, FileShare.None))
        {
            stream.Write(System.Text.Encoding.ASCII.GetBytes(length.ToString(CultureInfo.InvariantCulture)));
            stream.Flush(flushToDisk: true);
        }

        DirectorySync.Flush(Path.GetDirectoryName(path)!);
    }

    /// <summary>The length a marker demands for <paramref name="segmentPath"/>, or null if it has none.</summary>
    public static long? Read(string segmentPath)
    {
        var path = PathFor(segmentPath);
        if (!File.Exists(path))
        {
            return null;
        }

        var text = File.ReadAllText(path).Trim();
        return long.TryParse(text, NumberStyles.None, CultureInfo.InvariantCulture, out var length)
            ? length
            : throw new InvalidDataException($"Cut marker '{path}' should hold a byte length but holds '{text}'.");
    }

    /// <summary>Removes the marker once the segment has been cut durably.</summary>
    public static void Delete(string segmentPath)
    {
        var path = PathFor(segmentPath);
        File.Delete(path);
        DirectorySync.Flush(Path.GetDirectoryName(path)!);
    }

    /// <summary>
    /// After a failed write: cuts <paramref name="stream"/> (segment <paramref name="path"/>) back
    /// to the last acknowledged byte, since the write may have left part of the group, or all of it
    /// with valid checksums; if that fails too, leaves a marker for recovery to cut it.
    /// </summary>
    public static void CutBackOrMark(WalDisk disk, FileStream stream, string path, long acknowledged, ILogger diagnostics)
    {
        try
        {
            disk.Truncate(stream, acknowledged);
            return;
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            LogMessages.RollbackFailed(diagnostics, e, path, acknowledged);
        }

        try
        {
            Write(path, acknowledged);
            LogMessages.CutMarkerWritten(diagnostics, path, acknowledged);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            // Nothing on this disk can be written: recovery may read the failed group. This is
            // the one case no write-ahead log can cover; it is said loudly.
            LogMessages.CutMarkerFailed(diagnostics, e, path, acknowledged);
        }
    }
}

using Microsoft.Extensions.Logging;

namespace Snapper.Logging.FileStorage;

/// <summary>
/// Cuts a torn or corrupt tail off a log's last segment. A crash during an append can leave part of
/// a group on disk; that group was never acknowledged, so everything from its first bad frame on is
/// dropped, and appends continue from the last intact frame.
/// </summary>
internal static class TailRecovery
{
    /// <summary>Truncates <paramref name="path"/> at its first bad frame, if any; returns its valid length.</summary>
    public static async Task<long> RecoverAsync(string path, ILogger diagnostics, CancellationToken cancellationToken)
    {
        var stream = new FileStream(path, new FileStreamOptions
        {
            Mode = FileMode.Open,
            Access = FileAccess.ReadWrite,
            Share = FileShare.Read,
            BufferSize = 64 * 1024,
            Options = FileOptions.SequentialScan,
        });
        await using (stream.ConfigureAwait(false))
        {
            var length = stream.Length;
            using var reader = new FrameReader(stream, length);
            while (await reader.NextAsync(cancellationToken).ConfigureAwait(false))
            {
            }

            var valid = reader.Problem is null ? length : reader.FrameStart;
            var problem = reader.Problem;

            // A failed append that could not be rolled back left a marker: its frames may be
            // intact, but the group was reported as failed, so they go too.
            if (CutMarker.Read(path) is { } marked && marked < valid)
            {
                (valid, problem) = (marked, "a group whose append failed (cut marker)");
            }

            if (valid < length)
            {
                stream.SetLength(valid);
                stream.Flush(flushToDisk: true); // else a second crash could bring the bad bytes back
                FileStorageLog.TailCut(diagnostics, path, valid, length - valid, problem!);
            }

            // Only once the cut is durable: a marker left behind would cut later appends too, so a
            // failure here fails the scan and the log stays unused until it succeeds.
            if (File.Exists(CutMarker.PathFor(path)))
            {
                CutMarker.Delete(path);
            }

            return valid;
        }
    }
}

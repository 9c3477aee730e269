using Microsoft.Extensions.Logging;
using Snapper.Diagnostics;

namespace Snapper.Logging.FileStorage;

/// <summary>
/// Cuts a torn or corrupt tail off a log's last segment. A crash during an append can leave part of
/// a group on disk; that group was never acknowledged, so everything from its first bad frame on is
/// dropped, and appends continue from the last intact frame. Zeros after that frame are not torn:
/// they are the space the writer fills ahead of its appends, and stay.
/// </summary>
internal static class TailRecovery
{
    /// <summary>Truncates <paramref name="path"/> at its first bad frame, if any; returns the length of its intact frames.</summary>
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

            // Zeros from the last intact frame to the end are space the writer filled ahead of its
            // appends (SegmentLog.ZeroAhead), or a group that never reached the disk: nothing to
            // cut, and kept, since appends overwrite them. Anything else after that frame is torn.
            var zerosAhead = problem is not null && await ZerosToTheEndAsync(stream, valid, cancellationToken).ConfigureAwait(false);

            // A failed append that could not be rolled back left a marker: its frames may be
            // intact, but the group was reported as failed, so they go too.
            if (CutMarker.Read(path) is { } marked && marked < valid)
            {
                (valid, problem, zerosAhead) = (marked, "a group whose append failed (cut marker)", false);
            }

            if (valid < length && !zerosAhead)
            {
                stream.SetLength(valid);
                stream.Flush(flushToDisk: true); // else a second crash could bring the bad bytes back
                LogMessages.TailCut(diagnostics, path, valid, length - valid, problem!);
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

    private static async Task<bool> ZerosToTheEndAsync(FileStream stream, long from, CancellationToken cancellationToken)
    {
        stream.Position = from;
        var buffer = new byte[64 * 1024];
        int read;
        while ((read = await stream.ReadAsync(buffer, cancellationToken).ConfigureAwait(false)) > 0)
        {
            if (buffer.AsSpan(0, read).ContainsAnyExcept((byte)0))
            {
                return false;
            }
        }

        return true;
    }
}

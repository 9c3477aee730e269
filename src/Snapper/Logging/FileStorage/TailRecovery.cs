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

            if (reader.Problem is null)
            {
                return length;
            }

            var cut = reader.FrameStart;
            stream.SetLength(cut);
            stream.Flush(flushToDisk: true); // else a second crash could bring the bad bytes back
            FileStorageLog.TailCut(diagnostics, path, cut, length - cut, reader.Problem);
            return cut;
        }
    }
}

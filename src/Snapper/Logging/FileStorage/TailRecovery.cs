using Microsoft.Extensions.Logging;
using Snapper.Diagnostics;

namespace Snapper.Logging.FileStorage;

/// <summary>
/// Cuts a torn tail off a log's last segment, and refuses a corrupt one. A crash during an append
/// can leave part of a group on disk; that group was never acknowledged, so everything from its
/// first bad frame on is dropped, and appends continue from the last intact frame. Zeros after that
/// frame are not torn: they are the space the writer fills ahead of its appends, and stay. Damage a
/// crash cannot explain (<see cref="SegmentDamage"/>) is not cut: it fails the open with
/// <see cref="InvalidDataException"/> (<see cref="LogCorruption"/>), leaving the segment as it is.
/// </summary>
internal static class TailRecovery
{
    /// <summary>
    /// Truncates <paramref name="path"/> at its first bad frame if that is a torn tail, or where its
    /// cut marker says; returns the length of its intact frames.
    /// </summary>
    public static async Task<long> RecoverAsync(string log, string path, long segmentSize, ILogger diagnostics, CancellationToken cancellationToken)
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

            // A failed append that could not be rolled back left a marker: the frames past it may be
            // intact, but the group was reported as failed, so they go; everything before it was
            // acknowledged, so nothing there can be torn.
            var marked = CutMarker.Read(path);
            var limit = Math.Min(marked ?? length, length);
            using var reader = new FrameReader(stream, limit);
            while (await reader.NextAsync(cancellationToken).ConfigureAwait(false))
            {
            }

            var valid = reader.Problem is null ? limit : reader.FrameStart;
            var problem = reader.Problem;
            if (problem is not null)
            {
                var damage = SegmentDamage.Judge(stream.SafeFileHandle, valid, problem, limit, last: true, marked, segmentSize, countAll: false, cancellationToken);
                if (damage.Kind == DamageKind.Corrupt)
                {
                    throw LogCorruption.Exception(log, path, valid, damage.Reason);
                }

                if (damage.Kind == DamageKind.ZerosAhead)
                {
                    (valid, problem) = (length, null); // kept, since appends overwrite them
                }
            }

            if (marked is { } acknowledged)
            {
                if (acknowledged > length)
                {
                    throw LogCorruption.Exception(log, path, length, $"the segment ends there, but its cut marker says {acknowledged} bytes were acknowledged");
                }

                problem ??= valid < length ? "a group whose append failed (cut marker)" : null;
            }

            if (valid < length)
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

            // Where appends go: after the intact frames, over any zeros ahead of them.
            return reader.Problem is null ? limit : reader.FrameStart;
        }
    }
}

namespace Snapper.Logging.FileStorage;

/// <summary>
/// The three calls through which a log's bytes reach the disk: one write, one fsync, and the
/// truncation that rolls a failed group back. Real files only; the class exists so tests can make
/// one of these calls fail at the exact point a failing disk would, and check what a later
/// recovery reads.
/// </summary>
internal class WalDisk
{
    public static readonly WalDisk Real = new();

    public virtual void Write(FileStream stream, ReadOnlySpan<byte> bytes) => stream.Write(bytes);

    public virtual void FlushToDisk(FileStream stream) => stream.Flush(flushToDisk: true);

    /// <summary>Cuts <paramref name="stream"/> back to <paramref name="length"/> bytes, durably.</summary>
    public virtual void Truncate(FileStream stream, long length)
    {
        stream.SetLength(length);
        stream.Flush(flushToDisk: true);
    }
}

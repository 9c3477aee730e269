using System.Buffers;
using System.Buffers.Binary;

namespace Snapper.Logging.FileStorage;

/// <summary>
/// Reads the frames of one segment in order, up to a limit, and stops at the first that is not
/// whole and intact; what to make of such a frame (cut it, or fail) is the caller's decision.
/// </summary>
/// <remarks>
/// <see cref="Payload"/> is lent from a reused buffer and is valid only until the next call.
/// </remarks>
internal sealed class FrameReader : IDisposable
{
    private readonly Stream stream;
    private readonly long limit;
    private readonly byte[] header = new byte[WalFrame.HeaderSize];
    private byte[] buffer = ArrayPool<byte>.Shared.Rent(4096);

    /// <param name="stream">The segment, positioned at its start.</param>
    /// <param name="limit">How many bytes of the segment to read.</param>
    public FrameReader(Stream stream, long limit)
    {
        this.stream = stream;
        this.limit = limit;
    }

    /// <summary>The offset of the frame last returned or rejected.</summary>
    public long FrameStart { get; private set; }

    /// <summary>The offset just past the last intact frame.</summary>
    public long Position { get; private set; }

    /// <summary>The payload of the frame last returned.</summary>
    public ReadOnlyMemory<byte> Payload { get; private set; }

    /// <summary>How many intact frames were returned.</summary>
    public long Frames { get; private set; }

    /// <summary>The offset just past the last intact frame that ended a group (0 if none did).</summary>
    public long GroupEnd { get; private set; }

    /// <summary>Why reading stopped before the limit; null if it reached the limit cleanly.</summary>
    public string? Problem { get; private set; }

    /// <summary>Reads the next frame: true with <see cref="Payload"/> set, or false at the end or at a bad frame.</summary>
    public async ValueTask<bool> NextAsync(CancellationToken cancellationToken)
    {
        FrameStart = Position;
        Payload = default;
        var remaining = limit - Position;
        if (remaining == 0)
        {
            return false;
        }

        if (remaining < WalFrame.HeaderSize)
        {
            return Stop($"only {remaining} of the {WalFrame.HeaderSize} header bytes are present");
        }

        if (!await ReadExactlyAsync(header, cancellationToken).ConfigureAwait(false))
        {
            return Stop("the file ends inside the frame header");
        }

        var length = BinaryPrimitives.ReadUInt32LittleEndian(header);
        var stored = BinaryPrimitives.ReadUInt32LittleEndian(header.AsSpan(4));
        if (length == 0)
        {
            return Stop("the frame length is zero (an unwritten, zero-filled region)");
        }

        // Checked before allocating, so a garbage length cannot ask for gigabytes.
        if (length > remaining - WalFrame.HeaderSize)
        {
            return Stop($"the frame length {length} runs past the end ({remaining - WalFrame.HeaderSize} bytes follow the header)");
        }

        if (buffer.Length < length)
        {
            ArrayPool<byte>.Shared.Return(buffer);
            buffer = ArrayPool<byte>.Shared.Rent((int)length);
        }

        var payload = buffer.AsMemory(0, (int)length);
        if (!await ReadExactlyAsync(payload, cancellationToken).ConfigureAwait(false))
        {
            return Stop("the file ends inside the frame payload");
        }

        if (!WalFrame.Verify(payload.Span, stored, out var endsGroup))
        {
            return Stop($"checksum mismatch (stored 0x{stored:X8}, computed 0x{Crc32C.Compute(payload.Span):X8})");
        }

        Position += WalFrame.HeaderSize + length;
        GroupEnd = endsGroup ? Position : GroupEnd;
        Frames++;
        Payload = payload;
        return true;
    }

    public void Dispose()
    {
        ArrayPool<byte>.Shared.Return(buffer);
        buffer = [];
    }

    // The limit may be stale (the file shrank underneath): running out early is a bad frame, not a crash.
    private async ValueTask<bool> ReadExactlyAsync(Memory<byte> destination, CancellationToken cancellationToken)
    {
        var read = await stream.ReadAtLeastAsync(destination, destination.Length, throwOnEndOfStream: false, cancellationToken).ConfigureAwait(false);
        return read == destination.Length;
    }

    private bool Stop(string problem)
    {
        Problem = problem;
        return false;
    }
}

using System.Buffers;

namespace Snapper.History;

/// <summary>Splits a UTF-8 stream into lines without decoding it, skipping a leading byte order mark.</summary>
internal sealed class Utf8LineReader(Stream stream) : IDisposable
{
    private byte[] _buffer = ArrayPool<byte>.Shared.Rent(1 << 16);
    private int _start;
    private int _end;
    private bool _bomChecked;

    /// <summary>The stream is exhausted; whatever is buffered is the last line.</summary>
    public bool EndOfStream { get; private set; }

    /// <summary>The 1-based number of the line last taken.</summary>
    public long LineNumber { get; private set; }

    /// <summary>
    /// Takes the next line (without its <c>\n</c> or a trailing <c>\r</c>) if a whole one is buffered, or the
    /// rest at the end of the stream. <see langword="false"/> means: call <see cref="Fill"/> (or stop if
    /// <see cref="EndOfStream"/>).
    /// </summary>
    public bool TryTakeLine(out ReadOnlySpan<byte> line)
    {
        line = default;
        if (!_bomChecked)
        {
            return false;
        }

        var pending = _buffer.AsSpan(_start, _end - _start);
        var newline = pending.IndexOf((byte)'\n');
        if (newline < 0 && !(EndOfStream && pending.Length > 0))
        {
            return false;
        }

        line = newline < 0 ? pending : pending[..newline];
        _start += newline < 0 ? pending.Length : newline + 1;
        if (line.EndsWith("\r"u8))
        {
            line = line[..^1];
        }

        LineNumber++;
        return true;
    }

    /// <summary>Reads more of the stream.</summary>
    public void Fill()
    {
        var free = MakeRoom();
        Filled(stream.Read(_buffer, _end, free));
    }

    /// <summary>Reads more of the stream asynchronously.</summary>
    public async ValueTask FillAsync(CancellationToken cancellationToken)
    {
        var free = MakeRoom();
        Filled(await stream.ReadAsync(_buffer.AsMemory(_end, free), cancellationToken).ConfigureAwait(false));
    }

    public void Dispose()
    {
        var buffer = _buffer;
        _buffer = [];
        if (buffer.Length > 0)
        {
            ArrayPool<byte>.Shared.Return(buffer);
        }
    }

    private int MakeRoom()
    {
        if (_start > 0)
        {
            _buffer.AsSpan(_start, _end - _start).CopyTo(_buffer);
            _end -= _start;
            _start = 0;
        }

        if (_end == _buffer.Length)
        {
            // One line fills the whole buffer: grow it.
            var bigger = ArrayPool<byte>.Shared.Rent(_buffer.Length * 2);
            _buffer.AsSpan(0, _end).CopyTo(bigger);
            ArrayPool<byte>.Shared.Return(_buffer);
            _buffer = bigger;
        }

        return _buffer.Length - _end;
    }

    private void Filled(int read)
    {
        EndOfStream = read == 0;
        _end += read;
        if (!_bomChecked && (_end >= 3 || EndOfStream))
        {
            _bomChecked = true;
            if (_buffer.AsSpan(0, _end).StartsWith("\uFEFF"u8))
            {
                _start = 3;
            }
        }
    }
}

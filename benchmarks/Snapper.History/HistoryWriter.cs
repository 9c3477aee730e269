using System.Buffers;
using System.Threading.Channels;

namespace Snapper.History;

/// <summary>
/// Writes a history file while a load generator runs. <see cref="Append"/> is thread-safe and never blocks:
/// entries go through an unbounded queue to a single background writer, which serializes them into a buffer
/// and hands the buffer to the stream when it fills up or the queue runs dry. <see cref="FlushAsync"/> waits
/// until every entry appended before it is written and flushed; <see cref="DisposeAsync"/> writes the rest
/// and closes the file.
/// </summary>
public sealed class HistoryWriter : IAsyncDisposable
{
    private const int BufferThreshold = 1 << 16;

    private readonly Channel<object> _queue = Channel.CreateUnbounded<object>(new UnboundedChannelOptions
    {
        SingleReader = true,
        SingleWriter = false,
        AllowSynchronousContinuations = false,
    });

    private readonly Stream _stream;
    private readonly bool _leaveOpen;
    private readonly Task _pump;
    private long _appended;
    private long _written;
    private volatile Exception? _fault;
    private int _disposed;

    /// <summary>Creates (or replaces) the history file at <paramref name="path"/>.</summary>
    public HistoryWriter(string path)
        : this(new FileStream(path ?? throw new ArgumentNullException(nameof(path)), FileMode.Create, FileAccess.Write, FileShare.Read, bufferSize: 1, useAsync: true), leaveOpen: false)
    {
    }

    /// <summary>Writes history lines to <paramref name="stream"/>.</summary>
    /// <param name="stream">A writable stream.</param>
    /// <param name="leaveOpen">Whether <see cref="DisposeAsync"/> leaves <paramref name="stream"/> open.</param>
    public HistoryWriter(Stream stream, bool leaveOpen = false)
    {
        ArgumentNullException.ThrowIfNull(stream);
        if (!stream.CanWrite)
        {
            throw new ArgumentException("The stream is not writable.", nameof(stream));
        }

        _stream = stream;
        _leaveOpen = leaveOpen;
        _pump = Task.Run(PumpAsync);
    }

    /// <summary>Entries accepted by <see cref="Append"/> so far.</summary>
    public long AppendedCount => Interlocked.Read(ref _appended);

    /// <summary>Entries handed to the stream so far.</summary>
    public long WrittenCount => Interlocked.Read(ref _written);

    /// <summary>Queues <paramref name="entry"/> to be written as one history line. Thread-safe; does not block.</summary>
    /// <exception cref="ObjectDisposedException">The writer is disposed.</exception>
    /// <exception cref="IOException">An earlier write failed; nothing more is written.</exception>
    public void Append(HistoryEntry entry)
    {
        ArgumentNullException.ThrowIfNull(entry);
        _ = HistoryFile.StatusName(entry.Status); // reject an undefined status here, not in the background writer
        ThrowIfFaulted();
        if (!_queue.Writer.TryWrite(entry))
        {
            ThrowIfFaulted();
            throw new ObjectDisposedException(nameof(HistoryWriter));
        }

        Interlocked.Increment(ref _appended);
    }

    /// <summary>Waits until every entry appended before this call is written to the stream and the stream is flushed.</summary>
    /// <exception cref="ObjectDisposedException">The writer is disposed.</exception>
    /// <exception cref="IOException">A write failed.</exception>
    public async Task FlushAsync(CancellationToken cancellationToken = default)
    {
        ThrowIfFaulted();
        var done = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        if (!_queue.Writer.TryWrite(done))
        {
            ThrowIfFaulted();
            throw new ObjectDisposedException(nameof(HistoryWriter));
        }

        await done.Task.WaitAsync(cancellationToken).ConfigureAwait(false);
    }

    /// <summary>Writes every queued entry, flushes and closes the stream (unless left open).</summary>
    /// <exception cref="IOException">A write failed, so the history file is incomplete.</exception>
    public async ValueTask DisposeAsync()
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0)
        {
            return;
        }

        _queue.Writer.TryComplete();
        try
        {
            await _pump.ConfigureAwait(false);
        }
        finally
        {
            if (!_leaveOpen)
            {
                await _stream.DisposeAsync().ConfigureAwait(false);
            }
        }

        ThrowIfFaulted();
    }

    private async Task PumpAsync()
    {
        var buffer = new ArrayBufferWriter<byte>(BufferThreshold * 2);
        using var json = HistoryFile.CreateWriter(buffer);
        long pending = 0;
        var reader = _queue.Reader;
        TaskCompletionSource? flushing = null;
        try
        {
            while (await reader.WaitToReadAsync().ConfigureAwait(false))
            {
                while (reader.TryRead(out var item))
                {
                    if (item is HistoryEntry entry)
                    {
                        HistoryFile.AppendLine(json, buffer, entry);
                        pending++;
                        if (buffer.WrittenCount >= BufferThreshold)
                        {
                            await DrainAsync().ConfigureAwait(false);
                        }
                    }
                    else
                    {
                        flushing = (TaskCompletionSource)item;
                        await DrainAsync().ConfigureAwait(false);
                        await _stream.FlushAsync().ConfigureAwait(false);
                        flushing.TrySetResult();
                        flushing = null;
                    }
                }

                // The queue ran dry: hand what is buffered to the stream, so a crash loses little.
                await DrainAsync().ConfigureAwait(false);
            }

            await _stream.FlushAsync().ConfigureAwait(false);
        }
        catch (Exception ex)
        {
            _fault = ex;
            _queue.Writer.TryComplete(ex);
            flushing?.TrySetException(Wrap(ex));
            while (reader.TryRead(out var item))
            {
                (item as TaskCompletionSource)?.TrySetException(Wrap(ex));
            }

            return;
        }

        async Task DrainAsync()
        {
            if (buffer.WrittenCount > 0)
            {
                await _stream.WriteAsync(buffer.WrittenMemory).ConfigureAwait(false);
                buffer.ResetWrittenCount();
                Interlocked.Add(ref _written, pending);
                pending = 0;
            }
        }
    }

    private void ThrowIfFaulted()
    {
        if (_fault is { } fault)
        {
            throw Wrap(fault);
        }
    }

    private static IOException Wrap(Exception fault) =>
        new("Writing the history failed; the history file is incomplete.", fault);
}

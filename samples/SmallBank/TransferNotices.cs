using System.Collections.Concurrent;
using Snapper;

namespace SmallBank;

/// <summary>
/// SmallBank's after-commit handler: the stand-in for a notification service, as an application
/// registers one (<c>snapper.AddAfterCommitHandler&lt;TransferNotice, TransferNotices&gt;()</c>).
/// Snapper delivers at least once, and a repeat comes soon after a crash or a failover, so it
/// drops a notice whose id is among the last <see cref="Remembered"/> it sent; a service whose
/// effect must happen once keeps its ids beside the effect instead (<c>ListAppend.AppendedJournal</c>).
/// </summary>
public sealed class TransferNotices : IAfterCommitHandler<TransferNotice>
{
    /// <summary>How many recent ids it remembers.</summary>
    public const int Remembered = 1 << 16;

    private readonly ConcurrentDictionary<string, byte> recent = new(StringComparer.Ordinal);
    private readonly ConcurrentQueue<string> order = new();
    private long sent;
    private long repeats;

    /// <summary>Notices sent, once each.</summary>
    public long Sent => Interlocked.Read(ref sent);

    /// <summary>Notices dropped because their id was sent lately.</summary>
    public long Repeats => Interlocked.Read(ref repeats);

    /// <inheritdoc />
    public Task HandleAsync(TransferNotice message, AfterCommitContext context, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(context);
        if (!recent.TryAdd(context.Id, 0))
        {
            Interlocked.Increment(ref repeats);
            return Task.CompletedTask;
        }

        // Its own count: ConcurrentDictionary.Count takes every lock of the dictionary.
        if (Interlocked.Increment(ref sent) > Remembered && order.TryDequeue(out var oldest))
        {
            recent.TryRemove(oldest, out _);
        }

        order.Enqueue(context.Id);

        return Task.CompletedTask;
    }
}

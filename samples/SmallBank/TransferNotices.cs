using System.Collections.Concurrent;
using Snapper;

namespace SmallBank;

/// <summary>
/// SmallBank's after-commit handler: the stand-in for a notification service, as an application
/// registers one (<c>snapper.AddAfterCommitHandler&lt;TransferNotice, TransferNotices&gt;()</c>).
/// Snapper delivers at least once, so it drops a notice whose id it has sent before; a real
/// service would keep those ids beside its effect (a table, or an idempotency key of the service it calls).
/// </summary>
public sealed class TransferNotices : IAfterCommitHandler<TransferNotice>
{
    private readonly ConcurrentDictionary<string, byte> sent = new(StringComparer.Ordinal);
    private long repeats;

    /// <summary>Notices sent, once each.</summary>
    public int Sent => sent.Count;

    /// <summary>Notices dropped because their id was sent before.</summary>
    public long Repeats => Interlocked.Read(ref repeats);

    /// <inheritdoc />
    public Task HandleAsync(TransferNotice message, AfterCommitContext context, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(context);
        if (!sent.TryAdd(context.Id, 0))
        {
            Interlocked.Increment(ref repeats);
        }

        return Task.CompletedTask;
    }
}

using Snapper.Logging;

namespace Snapper.Recovery;

/// <summary>
/// One pass over every Snapper log in a storage, record by record, holding none of them: recovery
/// and checkpoints read the logs twice this way (decisions first, then states) instead of decoding
/// every record into memory at once, which on a log of millions of records costs seconds and
/// hundreds of megabytes at the very moment the silo is busiest.
/// </summary>
internal static class LogScan
{
    /// <summary>Sees record <paramref name="index"/> of log <paramref name="log"/>, encoded; the span lives only for the call.</summary>
    public delegate void Visitor(string log, int index, ReadOnlySpan<byte> record);

    /// <summary>
    /// Reads the logs twice: <paramref name="first"/> sees every record, then <paramref name="between"/>
    /// runs, then <paramref name="second"/> sees the same records again (no more, however many were
    /// appended meanwhile).
    /// </summary>
    /// <returns>How many records each log had.</returns>
    public static async Task<Dictionary<string, int>> TwiceAsync(
        ILogStorage storage, Visitor first, Action between, Visitor second, CancellationToken cancellationToken)
    {
        var counts = await ForEachAsync(storage, null, first, cancellationToken).ConfigureAwait(false);
        between();
        await ForEachAsync(storage, counts, second, cancellationToken).ConfigureAwait(false);
        return counts;
    }

    /// <summary>
    /// Passes every record of every Snapper log to <paramref name="visit"/>, log by log in append
    /// order. With <paramref name="limits"/> (a previous pass's result), reads each log only as far as
    /// that pass did and skips logs it did not see: both passes then see the same records, however
    /// many were appended in between. A record <paramref name="visit"/> finds undecodable
    /// (<see cref="InvalidDataException"/>) stops the pass, naming the log and the record.
    /// </summary>
    /// <returns>How many records each log had.</returns>
    public static async Task<Dictionary<string, int>> ForEachAsync(
        ILogStorage storage, IReadOnlyDictionary<string, int>? limits, Visitor visit, CancellationToken cancellationToken)
    {
        var counts = new Dictionary<string, int>(StringComparer.Ordinal);
        await foreach (var log in storage.ListAsync(cancellationToken))
        {
            if (!LogWriterPool.IsSnapperLog(log))
            {
                continue;
            }

            var limit = int.MaxValue;
            if (limits is not null && !limits.TryGetValue(log, out limit))
            {
                continue;
            }

            var index = 0;
            if (limit > 0)
            {
                await foreach (var record in storage.ReadAsync(log, cancellationToken))
                {
                    try
                    {
                        visit(log, index, record.Span);
                    }
                    catch (InvalidDataException e)
                    {
                        throw new InvalidDataException($"Log '{log}' holds a record that cannot be decoded (record {index}): {e.Message}", e);
                    }

                    if (++index == limit)
                    {
                        break;
                    }
                }
            }

            counts[log] = index;
        }

        return counts;
    }
}

using System.Collections.Concurrent;

namespace Snapper.LoadGen.Measurement;

/// <summary>
/// One mode's tally of who was in the way: every aborted attempt, the ones <c>RunAct</c> ran again
/// (<see cref="ActOptions.OnRetry"/>) and the aborts the caller saw, by the actor its
/// <see cref="AbortBlocker"/> names. Over the whole run, warm-up included, as the attempts per
/// commit are: the retried attempts are reported as they happen, not at a time the window could
/// place. Thread-safe: every loop and every retry records here.
/// </summary>
public sealed class AbortBlockers
{
    private ConcurrentDictionary<string, long> byActor = new(StringComparer.Ordinal);
    private long aborts;
    private long withoutBlocker;

    /// <summary>Aborted attempts recorded since the last <see cref="Reset"/>.</summary>
    public long Aborts => Interlocked.Read(ref aborts);

    /// <summary>Of <see cref="Aborts"/>, those for a concurrency reason (<see cref="InTheWay.IsConcurrency"/>) that named no blocker.</summary>
    public long WithoutBlocker => Interlocked.Read(ref withoutBlocker);

    /// <summary>Records an attempt or a transaction that ended with <paramref name="ended"/> (anything but a Snapper abort is not counted).</summary>
    public void Record(Exception ended)
    {
        if (ended is not TransactionAbortedException aborted)
        {
            return;
        }

        Interlocked.Increment(ref aborts);
        if (aborted.Blocker is { } blocker)
        {
            byActor.AddOrUpdate(InTheWay.NameOf(blocker), 1, static (_, count) => count + 1);
        }
        else if (InTheWay.IsConcurrency(aborted.Reason))
        {
            Interlocked.Increment(ref withoutBlocker);
        }
    }

    /// <summary>Starts a new mode's tally.</summary>
    public void Reset()
    {
        byActor = new ConcurrentDictionary<string, long>(StringComparer.Ordinal);
        Interlocked.Exchange(ref aborts, 0);
        Interlocked.Exchange(ref withoutBlocker, 0);
    }

    /// <summary>The <see cref="InTheWay.Listed"/> actors most often in the way, with their share of <see cref="Aborts"/>.</summary>
    public IReadOnlyList<InTheWay> Top() => InTheWay.Top(byActor, Aborts);
}

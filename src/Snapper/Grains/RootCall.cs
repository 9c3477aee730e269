namespace Snapper.Grains;

/// <summary>
/// Marks the call that starts a transaction, so the first actor knows it is the root: the client
/// makes the user's first call with this in Orleans' request context, and the root takes it out
/// before any nested call can carry it further. The root then runs the whole commit before it
/// answers that call (ACT: 2PC; PACT: waits for its batch to commit).
/// </summary>
/// <remarks>
/// Only the first call of the body carries the mark (<see cref="BeforeSend"/>): a body that makes
/// a second call with the same context after the root answered finds the transaction finished,
/// and is told so, instead of starting it a second time.
/// </remarks>
internal static class RootCall
{
    private const string TidKey = "snapper.root";
    private const string EarlyLockReleaseKey = "snapper.elr";
    private static readonly AsyncLocal<Pending?> Unsent = new();

    /// <summary>Client: the next call in this async flow starts transaction <paramref name="tid"/>.</summary>
    public static void Mark(long tid, bool earlyLockRelease)
    {
        RequestContext.Set(TidKey, tid);
        if (earlyLockRelease)
        {
            RequestContext.Set(EarlyLockReleaseKey, true);
        }

        Unsent.Value = new Pending(tid);
    }

    /// <summary>
    /// Caller side, as a call is sent (in its flow): the first call after <see cref="Mark"/> keeps
    /// the mark, later ones lose it.
    /// </summary>
    public static void BeforeSend()
    {
        if (Unsent.Value is not { } pending || RequestContext.Get(TidKey) is not long tid || tid != pending.Tid)
        {
            return;
        }

        if (pending.Sent)
        {
            RequestContext.Remove(TidKey);
            RequestContext.Remove(EarlyLockReleaseKey);
        }
        else
        {
            pending.Sent = true;
        }
    }

    /// <summary>Root: whether this call starts transaction <paramref name="tid"/>, and with early lock release; clears the mark.</summary>
    public static bool Take(long tid, out bool earlyLockRelease)
    {
        earlyLockRelease = false;
        if (RequestContext.Get(TidKey) is not long marked)
        {
            return false;
        }

        earlyLockRelease = RequestContext.Get(EarlyLockReleaseKey) is true;
        RequestContext.Remove(TidKey);
        RequestContext.Remove(EarlyLockReleaseKey);
        return marked == tid;
    }

    /// <summary>Any actor: a call carries a root mark for a transaction this actor is not the root of.</summary>
    public static bool IsMarkedFor(long tid) => RequestContext.Get(TidKey) is long marked && marked == tid;

    private sealed class Pending(long tid)
    {
        public long Tid { get; } = tid;

        public bool Sent { get; set; }
    }
}

namespace Snapper.Concurrency;

/// <summary>
/// The logical read/write lock of one actor under strict two-phase locking with wait-die
/// (Snapper §4.3.2). Locks are actor-level, as in the paper: <c>GetState</c> takes them, the
/// second phase of 2PC (or the read-only vote) releases them.
/// </summary>
/// <remarks>
/// Wait-die avoids deadlock by letting a transaction wait only for younger ones. Age is a
/// transaction's <em>priority</em>: its tid, or for a retried ACT the tid of its first attempt, so a
/// transaction that keeps dying grows older until it is the one others die for (no starvation);
/// distinct transactions never share a priority, so the order stays total and the waits acyclic.
/// The lock keeps one invariant that makes this hold across grants, not only at request time:
/// <b>every waiter is older than every holder</b>. Hence
/// <list type="bullet">
/// <item>a request compatible with the holders is granted at once only if it is younger than every
/// waiter (otherwise a waiter would end up waiting for an older holder);</item>
/// <item>a request that cannot be granted waits only if it is older than every holder, else it dies;</item>
/// <item>on release, waiters are granted youngest first, and only while compatible, so the ones left
/// waiting are older than the ones granted.</item>
/// </list>
/// A transaction never waits for itself: concurrent calls of one transaction to one actor may
/// request the lock at the same time, so a second request of a tid that is already queued joins
/// that waiter (raising its mode if needed) instead of queueing the tid twice, and a request of a
/// tid that already holds the lock is granted or upgraded at once.
/// Not thread-safe: it is owned by one actor and only touched inside that actor's turns.
/// </remarks>
internal sealed class WaitDieLock
{
    // Holders: at most one writer, or any number of readers, each with its priority. Readers are
    // few (most actors see one or two concurrent readers), so a small list beats a set.
    private readonly List<(long Tid, long Priority)> readers = new(4);
    private (long Tid, long Priority) writer;

    // Waiters sorted by priority descending: the youngest first, the order in which they are granted.
    private readonly List<Waiter> waiters = new(2);

    public bool IsFree => writer.Tid == 0 && readers.Count == 0;

    public int WaiterCount => waiters.Count;

    public LockMode HeldBy(long tid) =>
        writer.Tid == tid ? LockMode.Write : ReaderIndex(tid) >= 0 ? LockMode.Read : LockMode.None;

    /// <summary>The transactions <paramref name="waiter"/> waits behind: the holders, and the younger waiters granted before it.</summary>
    public List<long> Ahead(long waiter)
    {
        var ahead = new List<long>(readers.Count + 1);
        if (writer.Tid != 0 && writer.Tid != waiter)
        {
            ahead.Add(writer.Tid);
        }

        foreach (var reader in readers)
        {
            if (reader.Tid != waiter)
            {
                ahead.Add(reader.Tid);
            }
        }

        var priority = WaiterOf(waiter)?.Priority ?? long.MaxValue;
        foreach (var w in waiters)
        {
            if (w.Priority > priority)
            {
                ahead.Add(w.Tid);
            }
        }

        return ahead;
    }

    /// <summary>Acquire for a transaction whose priority is its tid (a first attempt).</summary>
    public ValueTask Acquire(long tid, LockMode mode, DateTimeOffset deadline, TimeProvider clock) => Acquire(tid, tid, mode, deadline, clock);

    /// <summary>
    /// Grants <paramref name="mode"/> to <paramref name="tid"/>, waits for it, or throws
    /// <see cref="TransactionAbortedException"/> (wait-die, upgrade conflict, deadline passed).
    /// <paramref name="priority"/> is its age for wait-die (smaller: older). Completes
    /// synchronously when the lock is granted at once.
    /// </summary>
    public ValueTask Acquire(long tid, long priority, LockMode mode, DateTimeOffset deadline, TimeProvider clock)
    {
        var held = HeldBy(tid);
        if (held >= mode)
        {
            return ValueTask.CompletedTask;
        }

        if (held == LockMode.Read)
        {
            // Upgrade read → write: only when no one else reads, else two upgraders would deadlock.
            if (readers.Count == 1)
            {
                readers.Clear();
                writer = (tid, priority);
                return ValueTask.CompletedTask;
            }

            throw new TransactionAbortedException(
                AbortReason.UpgradeConflict,
                $"cannot upgrade its read lock to a write lock: {readers.Count - 1} other transaction(s) also hold read locks")
            { Tid = tid };
        }

        if (WaiterOf(tid) is { } queued)
        {
            // A concurrent call of the same transaction already waits here: one wait serves both.
            if (mode > queued.Mode)
            {
                queued.Mode = mode;
            }

            return Await(queued, deadline, clock);
        }

        if (CompatibleWithHolders(mode) && (waiters.Count == 0 || priority > waiters[0].Priority))
        {
            Grant(tid, priority, mode);
            return ValueTask.CompletedTask;
        }

        var oldest = OldestHolder();
        if (priority < oldest.Priority)
        {
            return Wait(tid, priority, mode, deadline, clock);
        }

        throw new TransactionAbortedException(
            AbortReason.WaitDie,
            $"died waiting for a {mode} lock held by older transaction {oldest.Tid}")
        { Tid = tid };
    }

    /// <summary>Releases whatever <paramref name="tid"/> holds or waits for, and grants to waiters.</summary>
    public void Release(long tid)
    {
        if (writer.Tid == tid)
        {
            writer = default;
        }
        else if (ReaderIndex(tid) is var reader and >= 0)
        {
            readers.RemoveAt(reader);
        }

        for (var i = 0; i < waiters.Count; i++)
        {
            if (waiters[i].Tid == tid)
            {
                var gone = waiters[i];
                waiters.RemoveAt(i);
                gone.Promise.TrySetException(new TransactionAbortedException(AbortReason.Failure, "its lock request was cancelled because the transaction ended") { Tid = tid });
                break;
            }
        }

        GrantWaiters();
    }

    /// <summary>Fails every waiting request with the exception <paramref name="refusal"/> makes for its tid; holders keep their locks.</summary>
    public void RefuseWaiters(Func<long, Exception> refusal)
    {
        var gone = waiters.ToArray();
        waiters.Clear();
        foreach (var waiter in gone)
        {
            waiter.Promise.TrySetException(refusal(waiter.Tid));
        }
    }

    /// <summary>Fails <paramref name="tid"/>'s waiting request, if any, with <paramref name="refusal"/>.</summary>
    public void RefuseWaiter(long tid, Exception refusal)
    {
        for (var i = 0; i < waiters.Count; i++)
        {
            if (waiters[i].Tid == tid)
            {
                var gone = waiters[i];
                waiters.RemoveAt(i);
                gone.Promise.TrySetException(refusal);
                GrantWaiters();
                return;
            }
        }
    }

    private ValueTask Wait(long tid, long priority, LockMode mode, DateTimeOffset deadline, TimeProvider clock)
    {
        var waiter = new Waiter(tid, priority, mode);
        var at = 0;
        while (at < waiters.Count && waiters[at].Priority > priority)
        {
            at++;
        }

        waiters.Insert(at, waiter);
        return Await(waiter, deadline, clock);
    }

    private async ValueTask Await(Waiter waiter, DateTimeOffset deadline, TimeProvider clock)
    {
        var remaining = deadline - clock.GetUtcNow();
        try
        {
            // The continuation resumes in the actor's turn (no ConfigureAwait(false)): the lock is
            // only touched there.
            await waiter.Promise.Task.WaitAsync(remaining > TimeSpan.Zero ? remaining : TimeSpan.Zero, clock);
        }
        catch (TimeoutException)
        {
            if (waiter.Promise.Task.IsCompletedSuccessfully)
            {
                return; // granted in the same instant the deadline passed: keep the lock
            }

            waiters.Remove(waiter); // a no-op for the second of two requests sharing the waiter
            GrantWaiters();
            throw new TransactionAbortedException(AbortReason.Timeout, $"waited for a {waiter.Mode} lock until its deadline") { Tid = waiter.Tid };
        }
    }

    private void GrantWaiters()
    {
        while (waiters.Count > 0 && CompatibleWithHolders(waiters[0].Mode))
        {
            var next = waiters[0];
            waiters.RemoveAt(0);
            Grant(next.Tid, next.Priority, next.Mode);
            next.Promise.TrySetResult();
        }
    }

    private Waiter? WaiterOf(long tid)
    {
        foreach (var w in waiters)
        {
            if (w.Tid == tid)
            {
                return w;
            }
        }

        return null;
    }

    private bool CompatibleWithHolders(LockMode mode) =>
        writer.Tid == 0 && (mode == LockMode.Read || readers.Count == 0);

    private int ReaderIndex(long tid)
    {
        for (var i = 0; i < readers.Count; i++)
        {
            if (readers[i].Tid == tid)
            {
                return i;
            }
        }

        return -1;
    }

    private void Grant(long tid, long priority, LockMode mode)
    {
        if (mode == LockMode.Write)
        {
            writer = (tid, priority);
        }
        else
        {
            readers.Add((tid, priority));
        }
    }

    private (long Tid, long Priority) OldestHolder()
    {
        if (writer.Tid != 0)
        {
            return writer;
        }

        var oldest = (Tid: 0L, Priority: long.MaxValue);
        foreach (var r in readers)
        {
            if (r.Priority < oldest.Priority)
            {
                oldest = r;
            }
        }

        return oldest;
    }

    private sealed class Waiter(long tid, long priority, LockMode mode)
    {
        public long Tid { get; } = tid;

        public long Priority { get; } = priority;

        // Raised when a concurrent request of the same transaction asks for more.
        public LockMode Mode { get; set; } = mode;

        public TaskCompletionSource Promise { get; } = new(TaskCreationOptions.RunContinuationsAsynchronously);
    }
}

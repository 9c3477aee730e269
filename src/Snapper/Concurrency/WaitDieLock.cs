using System.Collections.Immutable;

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
/// <para>
/// One refinement keeps a hot actor from thrashing: an <em>entrant</em>, a transaction that holds no
/// lock anywhere yet (an ACT's first lock request at its root, before it has called anyone), waits
/// instead of dying, in arrival order, whatever its age. Nobody can wait for a transaction that
/// holds nothing, so its wait closes no cycle; and under plain wait-die a new transaction meeting a
/// held lock dies at once and its caller starts another, which meets the same lock: on a few hot
/// actors almost every attempt died and the dying ate the CPU. Entrants are granted only when no
/// wait-die waiter is left (those hold locks elsewhere, and others may wait on them), so the
/// invariant below still holds for every granted transaction. The queue is bounded, in length and in
/// time (<see cref="MaxEntrants"/>, <see cref="EntrantPatience"/>): past either an entrant dies as
/// before, so an actor whose lock is stuck (a holder whose call waits on a deactivating actor) sheds
/// its newcomers instead of collecting every caller of the cluster.
/// </para>
/// A transaction never waits for itself: concurrent calls of one transaction to one actor may
/// request the lock at the same time, so a second request of a tid that is already queued joins
/// that waiter (raising its mode if needed) instead of queueing the tid twice, and a request of a
/// tid that already holds the lock is granted or upgraded at once.
/// Not thread-safe: it is owned by one actor and only touched inside that actor's turns.
/// A request that dies or gives up names who was in its way (<see cref="AbortBlocker"/>): the
/// holders of the lock of <paramref name="owner"/> when it ended.
/// </remarks>
/// <param name="owner">The actor whose lock this is (default in unit tests).</param>
internal sealed class WaitDieLock(ActorId owner = default)
{
    // Holders: at most one writer, or any number of readers, each with its priority. Readers are
    // few (most actors see one or two concurrent readers), so a small list beats a set.
    private readonly List<(long Tid, long Priority)> readers = new(4);
    private (long Tid, long Priority) writer;

    // Waiters sorted by priority descending: the youngest first, the order in which they are granted.
    private readonly List<Waiter> waiters = new(2);

    /// <summary>Entrants queued at most; one more dies at once.</summary>
    internal const int MaxEntrants = 8;

    /// <summary>How long an entrant waits at most (within its deadline) before it dies.</summary>
    internal static readonly TimeSpan EntrantPatience = TimeSpan.FromSeconds(2);

    // Entrants waiting, in arrival order: granted once no waiter above is left.
    private readonly List<Waiter> entrants = new(2);

    public bool IsFree => writer.Tid == 0 && readers.Count == 0;

    public int WaiterCount => waiters.Count + entrants.Count;

    public LockMode HeldBy(long tid) =>
        writer.Tid == tid ? LockMode.Write : ReaderIndex(tid) >= 0 ? LockMode.Read : LockMode.None;

    /// <summary>The transactions <paramref name="waiter"/> waits behind: the holders, and the younger waiters granted before it.</summary>
    public List<long> Ahead(long waiter)
    {
        var ahead = new List<long>(readers.Count + 1);
        AddHolders(ahead, except: waiter);
        var priority = WaiterOf(waiter)?.Priority ?? long.MaxValue;
        var entrant = IndexOf(entrants, waiter);
        foreach (var w in waiters)
        {
            if (w.Priority > priority || entrant >= 0)
            {
                ahead.Add(w.Tid);
            }
        }

        for (var i = 0; i < entrant; i++)
        {
            ahead.Add(entrants[i].Tid);
        }

        return ahead;
    }

    /// <summary>Who is in the way of <paramref name="tid"/> here: the lock's holders other than itself.</summary>
    public AbortBlocker InTheWay(long tid)
    {
        var holders = ImmutableArray.CreateBuilder<long>(readers.Count + 1);
        AddHolders(holders, except: tid);
        return new AbortBlocker(owner, BlockedOn.Lock, holders.ToImmutable(), 0);
    }

    private void AddHolders(ICollection<long> into, long except)
    {
        if (writer.Tid != 0 && writer.Tid != except)
        {
            into.Add(writer.Tid);
        }

        foreach (var reader in readers)
        {
            if (reader.Tid != except)
            {
                into.Add(reader.Tid);
            }
        }
    }

    /// <summary>Acquire for a transaction whose priority is its tid (a first attempt).</summary>
    public ValueTask Acquire(long tid, LockMode mode, DateTimeOffset deadline, TimeProvider clock) => Acquire(tid, tid, mode, deadline, clock);

    /// <summary>Acquire under wait-die, for a transaction that may hold locks elsewhere.</summary>
    public ValueTask Acquire(long tid, long priority, LockMode mode, DateTimeOffset deadline, TimeProvider clock) =>
        Acquire(tid, priority, mode, deadline, clock, entrant: false);

    /// <summary>
    /// Grants <paramref name="mode"/> to <paramref name="tid"/>, waits for it, or throws
    /// <see cref="TransactionAbortedException"/> (wait-die, upgrade conflict, deadline passed).
    /// <paramref name="priority"/> is its age for wait-die (smaller: older). An
    /// <paramref name="entrant"/> holds no lock anywhere: it waits in arrival order instead of dying.
    /// Completes synchronously when the lock is granted at once.
    /// </summary>
    public ValueTask Acquire(long tid, long priority, LockMode mode, DateTimeOffset deadline, TimeProvider clock, bool entrant)
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
            { Tid = tid, Blocker = InTheWay(tid) };
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

        if (entrant)
        {
            if (CompatibleWithHolders(mode) && waiters.Count == 0 && entrants.Count == 0)
            {
                Grant(tid, priority, mode);
                return ValueTask.CompletedTask;
            }

            if (!CompatibleWithHolders(mode) && priority < OldestHolder().Priority)
            {
                return Wait(tid, priority, mode, deadline, clock); // old enough to wait as wait-die lets it (a retry)
            }

            if (entrants.Count >= MaxEntrants)
            {
                throw new TransactionAbortedException(AbortReason.WaitDie, $"died: {entrants.Count} transactions already wait to enter this lock") { Tid = tid, Blocker = InTheWay(tid) };
            }

            var patience = clock.GetUtcNow() + EntrantPatience;
            var waiting = new Waiter(tid, priority, mode) { GivesUpEarly = patience < deadline };
            entrants.Add(waiting);
            return Await(waiting, waiting.GivesUpEarly ? patience : deadline, clock);
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
        { Tid = tid, Blocker = AbortBlocker.Lock(owner, [oldest.Tid]) };
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

        if (Dequeue(tid) is { } gone)
        {
            gone.Promise.TrySetException(new TransactionAbortedException(AbortReason.Failure, "its lock request was cancelled because the transaction ended") { Tid = tid });
        }

        GrantWaiters();
    }

    /// <summary>Fails every waiting request with the exception <paramref name="refusal"/> makes for its tid; holders keep their locks.</summary>
    public void RefuseWaiters(Func<long, Exception> refusal)
    {
        Waiter[] gone = [.. waiters, .. entrants];
        waiters.Clear();
        entrants.Clear();
        foreach (var waiter in gone)
        {
            waiter.Promise.TrySetException(refusal(waiter.Tid));
        }
    }

    /// <summary>Fails <paramref name="tid"/>'s waiting request, if any, with <paramref name="refusal"/>.</summary>
    public void RefuseWaiter(long tid, Exception refusal)
    {
        if (Dequeue(tid) is { } gone)
        {
            gone.Promise.TrySetException(refusal);
            GrantWaiters();
        }
    }

    /// <summary>Whether <paramref name="tid"/> waits here as an entrant (holding no lock anywhere).</summary>
    public bool IsEntrant(long tid) => entrants.Count > 0 && IndexOf(entrants, tid) >= 0;

    private Waiter? Dequeue(long tid)
    {
        var list = waiters;
        var i = IndexOf(waiters, tid);
        if (i < 0)
        {
            (list, i) = (entrants, IndexOf(entrants, tid));
        }

        if (i < 0)
        {
            return null;
        }

        var gone = list[i];
        list.RemoveAt(i);
        return gone;
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

            var inTheWay = new AbortBlocker(owner, BlockedOn.Lock, [.. Ahead(waiter.Tid)], 0); // those it waited behind
            _ = waiters.Remove(waiter) || entrants.Remove(waiter); // a no-op for the second of two requests sharing the waiter
            GrantWaiters();
            if (waiter.GivesUpEarly)
            {
                throw new TransactionAbortedException(AbortReason.WaitDie, $"died after waiting {EntrantPatience.TotalSeconds:0.#} s to enter a {waiter.Mode} lock") { Tid = waiter.Tid, Blocker = inTheWay };
            }

            throw new TransactionAbortedException(AbortReason.Timeout, $"waited for a {waiter.Mode} lock until its deadline") { Tid = waiter.Tid, Blocker = inTheWay };
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

        // Entrants only once no waiter is left: one granted now would be younger than those waiters.
        while (waiters.Count == 0 && entrants.Count > 0 && CompatibleWithHolders(entrants[0].Mode))
        {
            var next = entrants[0];
            entrants.RemoveAt(0);
            Grant(next.Tid, next.Priority, next.Mode);
            next.Promise.TrySetResult();
        }
    }

    private Waiter? WaiterOf(long tid) =>
        IndexOf(waiters, tid) is >= 0 and var i ? waiters[i] : IndexOf(entrants, tid) is >= 0 and var j ? entrants[j] : null;

    // A loop, not List.FindIndex: a lambda capturing tid would allocate on every lock request.
    private static int IndexOf(List<Waiter> list, long tid)
    {
        for (var i = 0; i < list.Count; i++)
        {
            if (list[i].Tid == tid)
            {
                return i;
            }
        }

        return -1;
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

        /// <summary>An entrant whose wait ends at <see cref="EntrantPatience"/>, before its deadline: it dies then.</summary>
        public bool GivesUpEarly { get; init; }

        public TaskCompletionSource Promise { get; } = new(TaskCreationOptions.RunContinuationsAsynchronously);
    }
}

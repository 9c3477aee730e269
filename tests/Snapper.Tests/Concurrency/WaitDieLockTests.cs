using Snapper.Concurrency;
using Snapper.Tests.Infrastructure;

namespace Snapper.Tests.Concurrency;

/// <summary>
/// The wait-die lock on its own: grants, waits, deaths and the waiter invariant. Each test touches the
/// lock in actor turns, as its actor does; waits that give up resume there too.
/// </summary>
public sealed class WaitDieLockTests
{
    private static readonly DateTimeOffset Far = DateTimeOffset.UtcNow.AddMinutes(5);

    private static ValueTask Acquire(WaitDieLock l, long tid, LockMode mode) => l.Acquire(tid, mode, Far, TimeProvider.System);

    [Fact]
    public void Readers_share_and_a_writer_excludes()
    {
        var l = new WaitDieLock();
        Assert.True(Acquire(l, 5, LockMode.Read).IsCompletedSuccessfully);
        Assert.True(Acquire(l, 6, LockMode.Read).IsCompletedSuccessfully);
        Assert.Equal(LockMode.Read, l.HeldBy(5));
        Assert.Equal(LockMode.Read, l.HeldBy(6));

        var younger = Assert.Throws<TransactionAbortedException>(() => Acquire(l, 7, LockMode.Write));
        Assert.Equal(AbortReason.WaitDie, younger.Reason);
        Assert.Equal(7, younger.Tid);
    }

    [Fact]
    public Task A_request_that_dies_or_gives_up_names_the_lock_s_actor_and_who_held_it() => ActorTurns.Run(async () =>
    {
        var owner = ActorId.Create<ITestActor>("locked");
        var l = new WaitDieLock(owner);
        await Acquire(l, 5, LockMode.Read);
        await Acquire(l, 6, LockMode.Read);

        var died = Assert.Throws<TransactionAbortedException>(() => Acquire(l, 7, LockMode.Write));
        Assert.Equal(new AbortBlocker(owner, BlockedOn.Lock, [5], 0).ToString(), died.Blocker!.ToString()); // the oldest holder it died for

        var upgrade = Assert.Throws<TransactionAbortedException>(() => Acquire(l, 6, LockMode.Write));
        Assert.Equal(AbortReason.UpgradeConflict, upgrade.Reason);
        Assert.Equal([5L], upgrade.Blocker!.Tids.ToArray()); // the other reader, not itself

        // An older writer that waits until its deadline names those it waited behind.
        var timedOut = await Assert.ThrowsAsync<TransactionAbortedException>(() => l.Acquire(2, LockMode.Write, DateTimeOffset.UtcNow.AddMilliseconds(50), TimeProvider.System).AsTask());
        Assert.Equal(AbortReason.Timeout, timedOut.Reason);
        Assert.Equal((owner, BlockedOn.Lock), (timedOut.Blocker!.Actor, timedOut.Blocker.WaitedFor));
        Assert.Equal([5L, 6L], timedOut.Blocker.Tids.Order().ToArray());
    });

    [Fact]
    public Task An_older_writer_waits_and_is_granted_when_the_younger_holders_release() => ActorTurns.Run(async () =>
    {
        var l = new WaitDieLock();
        await Acquire(l, 5, LockMode.Read);
        await Acquire(l, 6, LockMode.Read);

        var older = Acquire(l, 2, LockMode.Write).AsTask();
        Assert.False(older.IsCompleted);
        l.Release(5);
        Assert.False(older.IsCompleted);
        l.Release(6);
        await older.WaitAsync(TimeSpan.FromSeconds(5));
        Assert.Equal(LockMode.Write, l.HeldBy(2));
    });

    [Fact]
    public Task A_compatible_reader_older_than_a_waiter_waits_instead_of_overtaking_it() => ActorTurns.Run(async () =>
    {
        var l = new WaitDieLock();
        await Acquire(l, 10, LockMode.Read);
        var writer = Acquire(l, 8, LockMode.Write).AsTask(); // waits for 10

        // Reader 5 is compatible with reader 10, but granting it would make writer 8 wait for an older holder.
        var oldReader = Acquire(l, 5, LockMode.Read).AsTask();
        Assert.False(oldReader.IsCompleted);

        // Reader 12 is younger than every waiter: it may share with 10 at once.
        Assert.True(Acquire(l, 12, LockMode.Read).IsCompletedSuccessfully);

        l.Release(10);
        l.Release(12);

        // Youngest waiter first: writer 8, while reader 5 keeps waiting (older than the holder).
        await writer.WaitAsync(TimeSpan.FromSeconds(5));
        Assert.False(oldReader.IsCompleted);
        l.Release(8);
        await oldReader.WaitAsync(TimeSpan.FromSeconds(5));
        Assert.Equal(LockMode.Read, l.HeldBy(5));
    });

    [Fact]
    public Task Releasing_a_waiting_transaction_cancels_its_request() => ActorTurns.Run(async () =>
    {
        var l = new WaitDieLock();
        await Acquire(l, 9, LockMode.Write);
        var waiting = Acquire(l, 3, LockMode.Write).AsTask();

        l.Release(3);

        await Assert.ThrowsAsync<TransactionAbortedException>(() => waiting);
        Assert.Equal(0, l.WaiterCount);
        Assert.Equal(LockMode.Write, l.HeldBy(9));
    });

    [Fact]
    public void A_sole_reader_upgrades_but_one_of_two_readers_cannot()
    {
        var l = new WaitDieLock();
        Assert.True(Acquire(l, 4, LockMode.Read).IsCompletedSuccessfully);
        Assert.True(Acquire(l, 4, LockMode.Write).IsCompletedSuccessfully);
        Assert.Equal(LockMode.Write, l.HeldBy(4));
        Assert.True(Acquire(l, 4, LockMode.Read).IsCompletedSuccessfully); // a writer may read
        l.Release(4);
        Assert.True(l.IsFree);

        Assert.True(Acquire(l, 4, LockMode.Read).IsCompletedSuccessfully);
        Assert.True(Acquire(l, 6, LockMode.Read).IsCompletedSuccessfully);
        var conflict = Assert.Throws<TransactionAbortedException>(() => Acquire(l, 4, LockMode.Write));
        Assert.Equal(AbortReason.UpgradeConflict, conflict.Reason);
    }

    [Fact]
    public Task A_wait_past_the_deadline_aborts_with_Timeout_and_leaves_no_waiter() => ActorTurns.Run(async () =>
    {
        var l = new WaitDieLock();
        await Acquire(l, 9, LockMode.Write);

        var aborted = await Assert.ThrowsAsync<TransactionAbortedException>(() =>
            l.Acquire(1, LockMode.Write, DateTimeOffset.UtcNow.AddMilliseconds(50), TimeProvider.System).AsTask());

        Assert.Equal(AbortReason.Timeout, aborted.Reason);
        Assert.Equal(0, l.WaiterCount);
    });

    [Fact]
    public Task Random_schedules_keep_every_waiter_older_than_every_holder() => ActorTurns.Run(async () =>
    {
        // Property check over many random request/release sequences: the invariant that makes
        // wait-die deadlock-free must hold after every step.
        var random = new Random(1234);
        for (var round = 0; round < 200; round++)
        {
            var l = new WaitDieLock();
            var live = new List<long>();
            var pending = new List<(long Tid, Task Wait)>();
            var entrants = new HashSet<long>(); // waited as holding nothing: may wait for anyone
            for (var step = 0; step < 30; step++)
            {
                var tid = random.NextInt64(1, 40);
                if (random.Next(3) == 0 && live.Count > 0)
                {
                    var victim = live[random.Next(live.Count)];
                    l.Release(victim);
                    live.Remove(victim);
                }
                else if (!live.Contains(tid) && !pending.Any(p => p.Tid == tid))
                {
                    try
                    {
                        var mode = random.Next(2) == 0 ? LockMode.Read : LockMode.Write;
                        var entrant = random.Next(3) == 0;
                        entrants.Remove(tid); // a tid seen before is a new transaction now
                        var request = l.Acquire(tid, tid, mode, Far, TimeProvider.System, entrant);
                        if (entrant)
                        {
                            entrants.Add(tid);
                        }

                        if (request.IsCompletedSuccessfully)
                        {
                            live.Add(tid);
                        }
                        else
                        {
                            pending.Add((tid, request.AsTask()));
                        }
                    }
                    catch (TransactionAbortedException)
                    {
                    }
                }

                await Task.Yield();
                foreach (var granted in pending.Where(p => p.Wait.IsCompletedSuccessfully).ToList())
                {
                    pending.Remove(granted);
                    live.Add(granted.Tid);
                }

                // Ask the lock itself: a grant is visible there before the waiting task completes.
                var holders = live.Concat(pending.Select(p => p.Tid)).Where(t => l.HeldBy(t) != LockMode.None).ToList();
                var waiters = pending.Where(p => l.HeldBy(p.Tid) == LockMode.None && !p.Wait.IsFaulted && !entrants.Contains(p.Tid)).Select(p => p.Tid).ToList();
                if (holders.Count > 0 && waiters.Count > 0)
                {
                    Assert.True(waiters.Max() < holders.Min(), $"round {round} step {step}: waiter {waiters.Max()} is younger than holder {holders.Min()}");
                }
            }
        }
    });

    [Fact]
    public Task A_retry_keeps_its_first_attempts_age_waiting_where_its_new_tid_would_die_and_making_younger_ones_die() => ActorTurns.Run(async () =>
    {
        var l = new WaitDieLock();
        await l.Acquire(10, 10, LockMode.Write, Far, TimeProvider.System);

        // Tid 20 is younger than the holder, but as a retry of tid 3 it is older: it waits.
        var retry = l.Acquire(20, 3, LockMode.Write, Far, TimeProvider.System).AsTask();
        Assert.False(retry.IsCompleted);
        l.Release(10);
        await retry.WaitAsync(TimeSpan.FromSeconds(5));
        Assert.Equal(LockMode.Write, l.HeldBy(20));

        // Tid 5 is smaller than 20 but younger than its age 3: it dies.
        var younger = Assert.Throws<TransactionAbortedException>(() => l.Acquire(5, 5, LockMode.Read, Far, TimeProvider.System));
        Assert.Equal(AbortReason.WaitDie, younger.Reason);
        Assert.Contains("older transaction 20", younger.Message, StringComparison.Ordinal);
    });

    [Fact]
    public Task An_entrant_waits_where_wait_die_would_kill_it_and_entrants_are_granted_in_arrival_order() => ActorTurns.Run(async () =>
    {
        var l = new WaitDieLock();
        await l.Acquire(5, 5, LockMode.Write, Far, TimeProvider.System);

        // Both are younger than the holder: as transactions holding locks elsewhere they would die.
        var later = l.Acquire(9, 9, LockMode.Write, Far, TimeProvider.System, entrant: true).AsTask();
        var latest = l.Acquire(7, 7, LockMode.Write, Far, TimeProvider.System, entrant: true).AsTask();
        Assert.False(later.IsCompleted);
        Assert.False(latest.IsCompleted);
        Assert.True(l.IsEntrant(9));
        Assert.Equal(2, l.WaiterCount);

        l.Release(5);
        await later.WaitAsync(TimeSpan.FromSeconds(5)); // arrival order, not age
        Assert.False(latest.IsCompleted);
        l.Release(9);
        await latest.WaitAsync(TimeSpan.FromSeconds(5));
        Assert.Equal(LockMode.Write, l.HeldBy(7));
    });

    [Fact]
    public Task An_entrant_goes_after_every_waiter_that_may_hold_locks_elsewhere() => ActorTurns.Run(async () =>
    {
        var l = new WaitDieLock();
        await l.Acquire(10, 10, LockMode.Write, Far, TimeProvider.System);
        var entrant = l.Acquire(20, 20, LockMode.Write, Far, TimeProvider.System, entrant: true).AsTask();
        var older = l.Acquire(3, 3, LockMode.Write, Far, TimeProvider.System).AsTask(); // wait-die: older than 10, waits

        l.Release(10);
        await older.WaitAsync(TimeSpan.FromSeconds(5));
        Assert.False(entrant.IsCompleted); // granted first, it would make waiter 3 wait for a younger holder

        // A newcomer that may hold locks elsewhere still dies against the older holder.
        var dies = Assert.Throws<TransactionAbortedException>(() => l.Acquire(30, 30, LockMode.Write, Far, TimeProvider.System));
        Assert.Equal(AbortReason.WaitDie, dies.Reason);

        l.Release(3);
        await entrant.WaitAsync(TimeSpan.FromSeconds(5));
        Assert.Equal(LockMode.Write, l.HeldBy(20));
    });

    [Fact]
    public Task A_refused_entrant_leaves_the_queue_and_the_next_one_is_granted() => ActorTurns.Run(async () =>
    {
        var l = new WaitDieLock();
        await l.Acquire(1, 1, LockMode.Write, Far, TimeProvider.System);
        var first = l.Acquire(2, 2, LockMode.Write, Far, TimeProvider.System, entrant: true).AsTask();
        var second = l.Acquire(3, 3, LockMode.Write, Far, TimeProvider.System, entrant: true).AsTask();

        l.RefuseWaiter(2, new TransactionAbortedException(AbortReason.WaitDie, "refused") { Tid = 2 });
        await Assert.ThrowsAsync<TransactionAbortedException>(() => first);
        Assert.False(l.IsEntrant(2));

        l.Release(1);
        await second.WaitAsync(TimeSpan.FromSeconds(5));
        Assert.Equal(LockMode.Write, l.HeldBy(3));
        Assert.Equal(0, l.WaiterCount);
    });

    [Fact]
    public Task An_entrant_dies_when_the_entry_queue_is_full_or_its_patience_runs_out() => ActorTurns.Run(async () =>
    {
        var l = new WaitDieLock();
        await l.Acquire(1, 1, LockMode.Write, Far, TimeProvider.System);
        var queued = Enumerable.Range(2, WaitDieLock.MaxEntrants).Select(t => l.Acquire(t, t, LockMode.Write, Far, TimeProvider.System, entrant: true).AsTask()).ToList();
        Assert.All(queued, q => Assert.False(q.IsCompleted));

        var shed = Assert.Throws<TransactionAbortedException>(() => l.Acquire(100, 100, LockMode.Write, Far, TimeProvider.System, entrant: true));
        Assert.Equal(AbortReason.WaitDie, shed.Reason);

        // The holder never lets go: each queued entrant gives up at its patience, as a retryable wait-die.
        var gaveUp = await Assert.ThrowsAsync<TransactionAbortedException>(() => queued[0].WaitAsync(WaitDieLock.EntrantPatience * 5));
        Assert.Equal(AbortReason.WaitDie, gaveUp.Reason);
        Assert.False(l.IsEntrant(2));
    });

    [Fact]
    public Task An_entrant_old_enough_to_wait_under_wait_die_waits_there_ahead_of_the_entrants() => ActorTurns.Run(async () =>
    {
        var l = new WaitDieLock();
        await l.Acquire(10, 10, LockMode.Write, Far, TimeProvider.System);
        var fresh = l.Acquire(20, 20, LockMode.Write, Far, TimeProvider.System, entrant: true).AsTask();
        var retry = l.Acquire(30, 3, LockMode.Write, Far, TimeProvider.System, entrant: true).AsTask(); // a retry: its age is 3
        Assert.False(l.IsEntrant(30));

        l.Release(10);
        await retry.WaitAsync(TimeSpan.FromSeconds(5));
        Assert.False(fresh.IsCompleted);
        l.Release(30);
        await fresh.WaitAsync(TimeSpan.FromSeconds(5));
    });
}

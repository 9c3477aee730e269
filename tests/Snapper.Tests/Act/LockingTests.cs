using Snapper.Hosting;
using Snapper.Tests.Infrastructure;

namespace Snapper.Tests.Act;

/// <summary>
/// Strict 2PL with wait-die across real transactions, interleaved with gates. What an ACT attempt
/// meets is the subject, so ACTs are not promoted (ActOptions.Promote) here.
/// </summary>
public sealed class LockingTests
{
    private static ActorId Actor(string key) => ActorId.Create<ITestActor>(key);

    private static void ActOnly(SnapperBuilder s) => s.Configure(o => o.Promote = false);

    [Fact]
    public async Task Wait_die_aborts_the_younger_transaction_that_asks_for_an_older_ones_lock()
    {
        await using var silo = await TestSilo.StartAsync(ActOnly);
        var x = Actor("x");
        silo.Gates.Signal("old may lock");

        var older = silo.Client.RunAct<ITestActor>(x, (a, ctx) => a.AddBetweenGates(ctx, "old may lock", "old locked", "old release"));
        await silo.Gates.Until("old locked");

        // The younger one holds z's lock when it asks for x's.
        var z = Actor("z");
        var younger = await Assert.ThrowsAsync<TransactionAbortedException>(() =>
            silo.Client.RunAct<ITestActor>(z, (a, ctx) => a.AddThenCall(ctx, 1, x, 100)));
        Assert.Equal(AbortReason.WaitDie, younger.Reason);

        // Who was in its way, from x through its root z to the caller (issue 54): x's lock, held by the older one.
        var blocker = Assert.IsType<AbortBlocker>(younger.Blocker);
        Assert.Equal((x, BlockedOn.Lock), (blocker.Actor, blocker.WaitedFor));
        var holder = Assert.Single(blocker.Tids);
        Assert.True(holder > 0 && holder < younger.Tid, $"the holder {holder} is older than {younger.Tid}");
        Assert.Contains($"(in the way: the lock of {x} held by {holder})", younger.Message, StringComparison.Ordinal);

        silo.Gates.Signal("old release");
        await older;
        Assert.Equal(1, await silo.Client.RunAct<ITestActor, int>(x, (a, ctx) => a.Read(ctx)));
        Assert.Equal(0, await silo.Client.RunAct<ITestActor, int>(z, (a, ctx) => a.Read(ctx)));
        silo.AssertQuiescent<Counter>(x);
        silo.AssertQuiescent<Counter>(z);
    }

    /// <summary>
    /// Issue 50: an ACT that died on one actor kept its locks until its other calls returned, one of
    /// them waiting for a lock on another actor (2.3 s once, under the nemesis). Its calls are in
    /// parallel: on a it dies (an older one holds a's lock), on b it waits (a younger one holds b's).
    /// It must stop waiting on b at once, abort, and free its root's lock, while b's holder still
    /// holds b.
    /// </summary>
    [Fact]
    public async Task An_act_that_dies_on_one_actor_stops_waiting_for_a_lock_on_another_and_frees_its_own()
    {
        await using var silo = await TestSilo.StartAsync(s => s.Configure(o => (o.Promote, o.TransactionTimeout) = (false, TimeSpan.FromMinutes(2))));
        var (root, a, b) = (Actor("doomed-root"), Actor("doomed-a"), Actor("doomed-b"));
        silo.Gates.Signal("u may lock");
        silo.Gates.Signal("v may lock");

        // Ages: u (oldest, holds a), t (the root's ACT), v (youngest, holds b once t has started).
        var u = silo.Client.RunAct<ITestActor>(a, (x, ctx) => x.AddBetweenGates(ctx, "u may lock", "u locked", "u release"));
        await silo.Gates.Until("u locked");
        var t = silo.Client.RunAct<ITestActor>(root, (x, ctx) => x.AddWaitThenCallBoth(ctx, "t locked", "t release", a, b));
        await silo.Gates.Until("t locked");
        var v = silo.Client.RunAct<ITestActor>(b, (x, ctx) => x.AddBetweenGates(ctx, "v may lock", "v locked", "v release"));
        await silo.Gates.Until("v locked");

        silo.Gates.Signal("t release");
        var died = await Assert.ThrowsAsync<TransactionAbortedException>(() => t.WaitAsync(TimeSpan.FromSeconds(30)));
        Assert.Equal(AbortReason.WaitDie, died.Reason); // what it died of on a, not the wait it gave up on b
        Assert.False(v.IsCompleted);
        await silo.Client.RunAct<ITestActor>(root, (x, ctx) => x.Add(ctx, 10)).WaitAsync(TimeSpan.FromSeconds(30)); // its lock is free

        silo.Gates.Signal("u release");
        silo.Gates.Signal("v release");
        await Task.WhenAll(u, v).WaitAsync(TimeSpan.FromSeconds(30));
        Assert.Equal((10, 1, 1), (await silo.Client.RunAct<ITestActor, int>(root, (x, ctx) => x.Read(ctx)), await silo.Client.RunAct<ITestActor, int>(a, (x, ctx) => x.Read(ctx)), await silo.Client.RunAct<ITestActor, int>(b, (x, ctx) => x.Read(ctx))));
        silo.AssertQuiescent<Counter>(root);
        silo.AssertQuiescent<Counter>(b);
    }

    [Fact]
    public async Task A_new_transaction_that_holds_nothing_waits_at_its_root_for_an_older_ones_lock_instead_of_dying()
    {
        await using var silo = await TestSilo.StartAsync(ActOnly);
        var x = Actor("entrant");
        silo.Gates.Signal("old may lock");
        var older = silo.Client.RunAct<ITestActor>(x, (a, ctx) => a.AddBetweenGates(ctx, "old may lock", "old locked", "old release"));
        await silo.Gates.Until("old locked");

        // Under plain wait-die it would die; holding no lock anywhere, it cannot close a cycle: it waits.
        var younger = silo.Client.RunAct<ITestActor>(x, (a, ctx) => a.Add(ctx, 100));
        await WaitUntil(() => silo.Engine<Counter>(x).Lock.WaiterCount == 1);
        Assert.False(younger.IsCompleted);

        silo.Gates.Signal("old release");
        await older;
        await younger; // committed after the older one
        Assert.Equal(101, await silo.Client.RunAct<ITestActor, int>(x, (a, ctx) => a.Read(ctx)));
        silo.AssertQuiescent<Counter>(x);
    }

    [Fact]
    public async Task Wait_die_lets_the_older_transaction_wait_for_a_younger_holder_and_never_aborts_it()
    {
        await using var silo = await TestSilo.StartAsync(ActOnly);
        var x = Actor("y");

        // The older transaction starts first (smaller tid) but only asks for the lock later.
        var older = silo.Client.RunAct<ITestActor>(x, (a, ctx) => a.AddBetweenGates(ctx, "old may lock", "old locked", "old release"));
        silo.Gates.Signal("young may lock");
        var younger = silo.Client.RunAct<ITestActor>(x, (a, ctx) => a.AddBetweenGates(ctx, "young may lock", "young locked", "young release"));
        await silo.Gates.Until("young locked");

        silo.Gates.Signal("old may lock");
        await WaitUntil(() => silo.Engine<Counter>(x).Lock.WaiterCount == 1);
        Assert.False(older.IsCompleted);

        silo.Gates.Signal("young release");
        await younger;
        await silo.Gates.Until("old locked");
        silo.Gates.Signal("old release");
        await older; // committed, not aborted

        Assert.Equal(2, await silo.Client.RunAct<ITestActor, int>(x, (a, ctx) => a.Read(ctx)));
        silo.AssertQuiescent<Counter>(x);
    }

    [Fact]
    public async Task A_read_only_ACT_takes_read_locks_only_and_writes_no_log_record()
    {
        await using var silo = await TestSilo.StartAsync(ActOnly);
        var x = Actor("r");
        var before = (await silo.LogRecords()).Count;

        var first = silo.Client.RunAct<ITestActor, int>(x, (a, ctx) => a.ReadBetweenGates(ctx, "first read", "first release"));
        await silo.Gates.Until("first read");
        Assert.False(silo.Engine<Counter>(x).Lock.IsFree);

        // A second reader shares the lock while the first still holds it; a writer (holding z's lock) would die.
        Assert.Equal(0, await silo.Client.RunAct<ITestActor, int>(x, (a, ctx) => a.Read(ctx)));
        var writer = await Assert.ThrowsAsync<TransactionAbortedException>(() => silo.Client.RunAct<ITestActor>(Actor("rz"), (a, ctx) => a.AddThenCall(ctx, 1, x, 1)));
        Assert.Equal(AbortReason.WaitDie, writer.Reason);

        silo.Gates.Signal("first release");
        Assert.Equal(0, await first);
        Assert.Equal(before, (await silo.LogRecords()).Count);
        silo.AssertQuiescent<Counter>(x);
    }

    [Fact]
    public async Task A_sole_reader_upgrades_to_a_write_lock()
    {
        await using var silo = await TestSilo.StartAsync(ActOnly);
        var x = Actor("u1");
        silo.Gates.Signal("write");

        await silo.Client.RunAct<ITestActor>(x, (a, ctx) => a.ReadThenWrite(ctx, "read", "write"));

        Assert.Equal(1, await silo.Client.RunAct<ITestActor, int>(x, (a, ctx) => a.Read(ctx)));
    }

    [Fact]
    public async Task An_upgrade_while_another_transaction_reads_aborts_with_UpgradeConflict()
    {
        await using var silo = await TestSilo.StartAsync(ActOnly);
        var x = Actor("u2");

        var upgrader = silo.Client.RunAct<ITestActor>(x, (a, ctx) => a.ReadThenWrite(ctx, "u read", "u write"));
        await silo.Gates.Until("u read");
        var reader = silo.Client.RunAct<ITestActor, int>(x, (a, ctx) => a.ReadBetweenGates(ctx, "r read", "r release"));
        await silo.Gates.Until("r read");

        silo.Gates.Signal("u write");
        var aborted = await Assert.ThrowsAsync<TransactionAbortedException>(() => upgrader);
        Assert.Equal(AbortReason.UpgradeConflict, aborted.Reason);
        Assert.Contains("other transaction(s) also hold read locks", aborted.Message);

        silo.Gates.Signal("r release");
        Assert.Equal(0, await reader);
        silo.AssertQuiescent<Counter>(x);
    }

    // The deadline is 2 s, not 300 ms: on a starved CI host the older one's first call reached x
    // after 300 ms, past its deadline, and was refused as a stale context before any lock wait.
    private static readonly TimeSpan ShortTimeout = TimeSpan.FromSeconds(2);

    [Fact]
    public async Task A_lock_wait_ends_at_the_transaction_deadline_with_reason_Timeout()
    {
        await using var silo = await TestSilo.StartAsync(s => s.Configure(o => (o.TransactionTimeout, o.Promote) = (ShortTimeout, false)));
        var x = Actor("t");

        // Older transaction waits for a younger holder that outlives the older one's deadline. Its
        // release gate is open: on a starved host its deadline timer can fire after the younger's
        // record expired (its deadline + 1 s) and the lock went to it; it then runs on and must
        // abort at its end, for the same reason (once it waited 20 s for a closed gate instead).
        silo.Gates.Signal("old release");
        var older = silo.Client.RunAct<ITestActor>(x, (a, ctx) => a.AddBetweenGates(ctx, "old go", "old locked", "old release"));
        silo.Gates.Signal("young go");
        var younger = silo.Client.RunAct<ITestActor>(x, (a, ctx) => a.AddBetweenGates(ctx, "young go", "young locked", "young release"));
        await silo.Gates.Until("young locked");
        silo.Gates.Signal("old go");

        var aborted = await Assert.ThrowsAsync<TransactionAbortedException>(() => older);
        Assert.Equal(AbortReason.Timeout, aborted.Reason);

        // The younger one started before "young locked", so a deadline and 50 ms later its own
        // deadline has certainly passed too: it must abort at its end instead of committing.
        await Task.Delay(ShortTimeout + TimeSpan.FromMilliseconds(50));
        silo.Gates.Signal("young release");
        var late = await Assert.ThrowsAsync<TransactionAbortedException>(() => younger);
        Assert.Equal(AbortReason.Timeout, late.Reason);
        silo.AssertQuiescent<Counter>(x);
    }

    private static async Task WaitUntil(Func<bool> condition)
    {
        var until = DateTime.UtcNow.AddSeconds(10);
        while (!condition())
        {
            Assert.True(DateTime.UtcNow < until, "condition not reached within 10 s");
            await Task.Delay(5);
        }
    }
}

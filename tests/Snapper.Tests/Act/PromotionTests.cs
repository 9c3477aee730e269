using System.Collections.Concurrent;
using Snapper.Hosting;
using Snapper.Tests.Infrastructure;
using static Snapper.Tests.Act.PromotionSites;

namespace Snapper.Tests.Act;

/// <summary>
/// ActOptions.Promote: an ACT attempt that aborts for a concurrency reason runs again as a PACT over
/// the calls it made, learns calls it had not reached, and a PACT may declare more than it calls.
/// Each contended case is built with an older ACT (the blocker) holding a lock, so the ACT dies under
/// wait-die for certain, not by luck of timing.
/// </summary>
public sealed class PromotionTests
{
    private static readonly TimeSpan Bound = TimeSpan.FromSeconds(15);

    [Fact]
    public async Task A_contended_transfer_is_promoted_and_commits_as_a_PACT()
    {
        await using var silo = await TestSilo.StartAsync();
        var (a, b) = (Actor("p1-a"), Actor("p1-b"));

        // The ACT died at b (younger than the blocker); its promoted run waits there behind it.
        var (paid, modes) = await PayBehindBlocker(silo, a, b, "p1", (x, ctx) => x.PayEach(ctx, 1, [b]));

        Assert.Equal(1, paid);
        Assert.Equal([TxnMode.Act, TxnMode.Pact], modes);
        Assert.Equal((-1, 1), (await Read(silo, a), await Read(silo, b)));
        await silo.UntilResolved();
    }

    [Fact]
    public async Task An_attempt_that_aborted_half_way_learns_the_rest_from_its_promoted_runs()
    {
        await using var silo = await TestSilo.StartAsync();
        var (a, b, c) = (Actor("p2-a"), Actor("p2-b"), Actor("p2-c"));

        // Pays b, then c, named by key (so the call names no actor): the ACT dies at b and never learns of c.
        var (paid, modes) = await PayBehindBlocker(silo, a, b, "p2", (x, ctx) => x.PayKeys(ctx, 1, ["p2-b", "p2-c"]));

        // The first promoted run declared a and b and called c: refused, a reconnaissance (a PACT's
        // mode, nothing written) learned the rest, and the run after it declared c too.
        Assert.Equal(2, paid);
        Assert.Equal([TxnMode.Act, TxnMode.Pact, TxnMode.Pact, TxnMode.Pact], modes);
        Assert.Equal((-2, 1, 1), (await Read(silo, a), await Read(silo, b), await Read(silo, c)));
        await silo.UntilResolved();
    }

    [Fact]
    public async Task An_attempt_that_aborted_half_way_declares_the_actors_its_call_names_and_commits_in_one_promoted_run()
    {
        await using var silo = await TestSilo.StartAsync();
        var (a, b, c) = (Actor("p7-a"), Actor("p7-b"), Actor("p7-c"));

        // Pays b, then c: the ACT dies at b, but the call names c.
        var (paid, modes) = await PayBehindBlocker(silo, a, b, "p7", (x, ctx) => x.PayEach(ctx, 1, [b, c]));

        Assert.Equal(2, paid);
        Assert.Equal([TxnMode.Act, TxnMode.Pact], modes);
        Assert.Equal((-2, 1, 1), (await Read(silo, a), await Read(silo, b), await Read(silo, c)));
        await silo.UntilResolved();
    }

    [Fact]
    public async Task A_transaction_whose_calls_change_between_runs_converges_and_what_it_no_longer_calls_is_released()
    {
        await using var silo = await TestSilo.StartAsync(s => s.Configure(o => o.DeclarationTimeout = TimeSpan.FromMinutes(30)));
        var (a, b, c, d) = (Actor("p3-a"), Actor("p3-b"), Actor("p3-c"), Actor("p3-d"));
        var blocker = await Block(silo, b, "p3");
        var modes = new ConcurrentQueue<TxnMode>();

        // As a transaction whose target is read from data that others change: each run pays
        // another actor, until it settles on d. Every run declares what the runs before it called.
        string[] targets = ["p3-b", "p3-c", "p3-d"];
        var transfer = silo.Client.RunAct<IPromotionTestActor, int>(a, (x, ctx) =>
        {
            modes.Enqueue(ctx.Mode);
            return x.PayKeys(ctx, 1, [targets[Math.Min(modes.Count, targets.Length) - 1]]);
        });

        await UntilPromoted(modes, transfer);
        silo.Gates.Signal("p3 release");
        await blocker.WaitAsync(Bound);

        // Run 2 declared a, b and called c: refused; the reconnaissance after it called d; run 4
        // declared all four, called d, and committed: b and c, declared and not called, did not hold
        // it up until the declaration timeout (30 minutes here).
        Assert.Equal(1, await transfer.WaitAsync(Bound));
        Assert.Equal([TxnMode.Act, TxnMode.Pact, TxnMode.Pact, TxnMode.Pact], modes);
        Assert.Equal((-1, 0, 0, 1), (await Read(silo, a), await Read(silo, b), await Read(silo, c), await Read(silo, d)));
        await silo.UntilResolved();
    }

    [Fact]
    public async Task A_PACT_that_declares_actors_it_never_calls_commits_without_waiting_for_the_declaration_timeout()
    {
        await using var silo = await TestSilo.StartAsync(s => s.Configure(o => o.DeclarationTimeout = TimeSpan.FromMinutes(30)));
        var (a, b, c, d) = (Actor("p4-a"), Actor("p4-b"), Actor("p4-c"), Actor("p4-d"));

        // Called from the root: b once of twice; c and d never.
        var paid = await silo.Client.RunPact<IPromotionTestActor, int>(a, (x, ctx) => x.PayEach(ctx, 1, [b]), AccessSet.Of(a).And(b, 2).And(c).And(d)).WaitAsync(Bound);
        Assert.Equal(1, paid);

        // Called from b, not from the root: c once of the twice declared.
        await silo.Client.RunPact<IPromotionTestActor>(a, (x, ctx) => x.PayThrough(ctx, b, c), AccessSet.Of(a).And(b).And(c, 2)).WaitAsync(Bound);

        // Nothing is left waiting: the next PACTs on those actors run at once.
        await silo.Client.RunPact<IPromotionTestActor, int>(d, (x, ctx) => x.PayEach(ctx, 1, [b, c]), AccessSet.Of(d).And(b).And(c)).WaitAsync(Bound);
        Assert.Equal((-2, 1, 2, -2), (await Read(silo, a), await Read(silo, b), await Read(silo, c), await Read(silo, d)));
        await silo.UntilResolved();
    }

    [Fact]
    public async Task A_user_abort_is_not_promoted()
    {
        await using var silo = await TestSilo.StartAsync();
        var a = Actor("p5-a");
        var runs = 0;

        var aborted = await Assert.ThrowsAsync<TransactionAbortedException>(() => silo.Client.RunAct<IPromotionTestActor, int>(a, (x, ctx) =>
        {
            Interlocked.Increment(ref runs);
            return x.PayThenAbort(ctx);
        }).WaitAsync(Bound));

        Assert.Equal(AbortReason.User, aborted.Reason);
        Assert.Equal(1, runs);
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task With_promotion_off_a_contended_ACT_aborts_as_before(bool offSiloWide)
    {
        await using var silo = await TestSilo.StartAsync(s => s.Configure(o => o.Promote = !offSiloWide));
        var (a, b) = (Actor("p6-a"), Actor("p6-b"));
        var blocker = await Block(silo, b, "p6");
        var modes = new ConcurrentQueue<TxnMode>();

        var aborted = await Assert.ThrowsAsync<TransactionAbortedException>(() => silo.Client.RunAct<IPromotionTestActor, int>(
            a,
            (x, ctx) =>
            {
                modes.Enqueue(ctx.Mode);
                return x.PayEach(ctx, 1, [b]);
            },
            offSiloWide ? ActOptions.Default : new ActOptions { Promote = false }).WaitAsync(Bound));

        Assert.Equal(AbortReason.WaitDie, aborted.Reason);
        Assert.Equal([TxnMode.Act], modes);
        silo.Gates.Signal("p6 release");
        await blocker.WaitAsync(Bound);
        Assert.Equal((0, 0), (await Read(silo, a), await Read(silo, b)));
    }

    // Until the body runs a second time: the ACT died and runs again as a PACT. If the transfer
    // ended instead, its outcome says why.
    [Fact]
    public async Task While_most_ACTs_lose_their_race_a_new_one_starts_as_a_PACT_and_learns_its_calls()
    {
        await using var silo = await TestSilo.StartAsync();
        var (a, b, c) = (Actor("p9-a"), Actor("p9-b"), Actor("p9-c"));
        var modes = new ConcurrentQueue<TxnMode>();
        Func<IPromotionTestActor, TxnContext, Task<int>> body = (x, ctx) =>
        {
            modes.Enqueue(ctx.Mode);
            return x.PayKeys(ctx, 1, ["p9-b", "p9-c"]);
        };
        AsUnderSkew(silo, body);

        var paid = await silo.Client.RunAct(a, body).WaitAsync(Bound);

        // No ACT attempt: the first run declared a alone (its call names no actor) and was refused
        // at b; a reconnaissance learned b and c; the run after it committed.
        Assert.Equal(2, paid);
        Assert.Equal([TxnMode.Pact, TxnMode.Pact, TxnMode.Pact], modes);
        Assert.Equal((-2, 1, 1), (await Read(silo, a), await Read(silo, b), await Read(silo, c)));

        // A user abort is final there too, with nothing left behind.
        var user = await Assert.ThrowsAsync<TransactionAbortedException>(() =>
            silo.Client.RunAct<IPromotionTestActor, int>(b, (x, ctx) => x.PayThenAbort(ctx)).WaitAsync(Bound));
        Assert.Equal(AbortReason.User, user.Reason);
        Assert.Equal(1, await Read(silo, b));
        await silo.UntilResolved();
    }

    [Fact]
    public async Task While_most_ACTs_lose_a_new_one_declares_the_actors_its_call_names_and_commits_in_one_run()
    {
        await using var silo = await TestSilo.StartAsync();
        var (a, b, c) = (Actor("p10-a"), Actor("p10-b"), Actor("p10-c"));
        var modes = new ConcurrentQueue<TxnMode>();
        Func<IPromotionTestActor, TxnContext, Task<int>> body = (x, ctx) =>
        {
            modes.Enqueue(ctx.Mode);
            return x.PayEach(ctx, 1, [b, c]);
        };
        AsUnderSkew(silo, body);

        Assert.Equal(2, await silo.Client.RunAct(a, body).WaitAsync(Bound));
        Assert.Equal([TxnMode.Pact], modes);
        Assert.Equal((-2, 1, 1), (await Read(silo, a), await Read(silo, b), await Read(silo, c)));
        await silo.UntilResolved();
    }

    [Fact]
    public async Task An_actor_a_promoted_call_names_but_never_calls_is_released_when_the_body_returns()
    {
        await using var silo = await TestSilo.StartAsync(s => s.Configure(o => o.DeclarationTimeout = TimeSpan.FromMinutes(30)));
        var (a, b, c) = (Actor("p11-a"), Actor("p11-b"), Actor("p11-c"));
        Func<IPromotionTestActor, TxnContext, Task<int>> body = (x, ctx) => x.PayFirstOf(ctx, [b, c]);
        AsUnderSkew(silo, body);

        // Declared a, b and c; called b only: c did not hold it up until the declaration timeout.
        Assert.Equal(1, await silo.Client.RunAct(a, body).WaitAsync(Bound));

        // Nor does it hold up the next PACT on c.
        await silo.Client.RunPact<IPromotionTestActor>(c, (x, ctx) => x.Add(ctx, 5), AccessSet.Of(c)).WaitAsync(Bound);
        Assert.Equal((-1, 1, 5), (await Read(silo, a), await Read(silo, b), await Read(silo, c)));
        await silo.UntilResolved();
    }

    [Fact]
    public async Task A_body_that_reads_its_tid_before_its_call_sees_the_real_one_and_its_call_site_is_placed_up_front()
    {
        await using var silo = await TestSilo.StartAsync();

        // The first run read its tid before its call was sent: it stopped there, and the runs
        // after it were placed up front (declaring a, then learning b).
        await TidFirstBodyIsPlacedUpFront(silo, "p12", firstRunsRefused: false, (x, ctx, b) => x.PayEach(ctx, 1, [b]));
    }

    [Fact]
    public async Task A_body_that_reads_its_tid_after_its_call_sees_the_one_it_was_placed_with()
    {
        await using var silo = await TestSilo.StartAsync();
        var (a, b) = (Actor("p13-a"), Actor("p13-b"));
        var runs = 0;
        Func<IPromotionTestActor, TxnContext, Task<(long, long)>> body = async (x, ctx) =>
        {
            Interlocked.Increment(ref runs);
            await x.PayEach(ctx, 1, [b]);
            return (ctx.Tid, ctx.Bid);
        };
        AsUnderSkew(silo, body);

        var (tid, bid) = await silo.Client.RunAct(a, body).WaitAsync(Bound);
        Assert.Equal(1, runs);
        Assert.True(tid > 0 && bid > 0 && bid <= tid, $"tid {tid}, bid {bid}");
        await silo.UntilResolved();
    }

    private static async Task UntilPromoted(ConcurrentQueue<TxnMode> modes, Task transfer)
    {
        await Poll.Until(() => modes.Count >= 2 || transfer.IsCompleted, "the transfer ran again as a PACT");
        if (modes.Count < 2)
        {
            await transfer;
            Assert.Fail($"the transfer committed as {string.Join(", ", modes)} without being promoted");
        }
    }

    // Runs pay as an ACT on a while an older ACT holds b's lock: the ACT dies at b and runs again
    // promoted, then the blocker lets b go. What the transfer returned, and each run's mode.
    private static async Task<(int Paid, TxnMode[] Modes)> PayBehindBlocker(TestSilo silo, ActorId a, ActorId b, string name, Func<IPromotionTestActor, TxnContext, Task<int>> pay)
    {
        var blocker = await Block(silo, b, name);
        var modes = new ConcurrentQueue<TxnMode>();
        var transfer = silo.Client.RunAct<IPromotionTestActor, int>(a, (x, ctx) =>
        {
            modes.Enqueue(ctx.Mode);
            return pay(x, ctx);
        });

        await UntilPromoted(modes, transfer);
        silo.Gates.Signal($"{name} release");
        await blocker.WaitAsync(Bound);
        return (await transfer.WaitAsync(Bound), [.. modes]);
    }

    // An older ACT that holds b's write lock until "{name} release".
    private static async Task<Task> Block(TestSilo silo, ActorId b, string name)
    {
        var blocker = silo.Client.RunAct<IPromotionTestActor>(b, (x, ctx) => x.HoldBetweenGates(ctx, $"{name} locked", $"{name} release"));
        await silo.Gates.Until($"{name} locked");
        return blocker;
    }

}

/// <summary>What PromotionTests and ReconnaissanceTests share: call sites primed as under skew, and the actors' reads.</summary>
internal static class PromotionSites
{
    /// <summary>
    /// As under heavy skew: most ACTs of this call site lost their first race, so the next starts
    /// promoted; with <paramref name="firstRunsRefused"/>, most such starts had their first run
    /// refused too (the body calls in rounds its call does not name), so it reconnoitres first.
    /// </summary>
    public static ActContention AsUnderSkew(TestSilo silo, Delegate body, bool firstRunsRefused = false)
    {
        var contention = ((SnapperClient)silo.Client).ContentionOf(body);
        for (var i = 0; i < 200; i++)
        {
            contention.FirstAttemptEnded(lostRace: true);
            if (firstRunsRefused)
            {
                contention.FirstPromotedRunEnded(refused: true);
            }
        }

        return contention;
    }

    /// <summary>
    /// A body that reads its tid before its call, as a history records it, paying b: the run that
    /// reads it first (placed on send, or a reconnaissance) stops there having sent nothing, the
    /// runs after it are placed up front, no run sees tid 0, and the call site remembers.
    /// </summary>
    public static async Task TidFirstBodyIsPlacedUpFront(TestSilo silo, string name, bool firstRunsRefused, Func<IPromotionTestActor, TxnContext, ActorId, Task<int>> pay)
    {
        var (a, b) = (Actor($"{name}-a"), Actor($"{name}-b"));
        var (runs, tids) = (0, new ConcurrentQueue<long>());
        Func<IPromotionTestActor, TxnContext, Task<int>> body = (x, ctx) =>
        {
            Interlocked.Increment(ref runs);
            tids.Enqueue(ctx.Tid);
            return pay(x, ctx, b);
        };
        AsUnderSkew(silo, body, firstRunsRefused);

        Assert.Equal(1, await silo.Client.RunAct(a, body).WaitAsync(TimeSpan.FromSeconds(15)));
        Assert.Equal(3, runs);
        Assert.Equal(2, tids.Count);
        Assert.DoesNotContain(0L, tids);

        (runs, tids) = (0, new ConcurrentQueue<long>());
        Assert.Equal(1, await silo.Client.RunAct(a, body).WaitAsync(TimeSpan.FromSeconds(15)));
        Assert.Equal(runs, tids.Count);
        Assert.DoesNotContain(0L, tids);
        Assert.Equal((-2, 2), (await Read(silo, a), await Read(silo, b)));
        await silo.UntilResolved();
    }

    /// <summary>The counter of <paramref name="actor"/>, read in a PACT.</summary>
    public static Task<int> Read(TestSilo silo, ActorId actor) =>
        silo.Client.RunPact<IPromotionTestActor, int>(actor, (x, ctx) => x.Read(ctx), AccessSet.Of(actor));

    public static ActorId Actor(string key) => ActorId.Create<IPromotionTestActor>(key);
}

/// <summary>The transfers promoted above.</summary>
public interface IPromotionTestActor : ITransactionalActor, IGrainWithStringKey
{
    Task<int> Read(TxnContext ctx);

    Task Add(TxnContext ctx, int delta);

    Task HoldBetweenGates(TxnContext ctx, string locked, string release);

    Task<int> PayEach(TxnContext ctx, int amount, ActorId[] to);

    Task<int> PayKeys(TxnContext ctx, int amount, string[] keys);

    Task<int> PayFirstOf(TxnContext ctx, ActorId[] to);

    Task PayThrough(TxnContext ctx, ActorId via, ActorId to);

    Task<int> PayThenAbort(TxnContext ctx);

    Task<int> PayInRounds(TxnContext ctx, string b, string c);

    Task<int> PayBetweenGates(TxnContext ctx, string to, string at, string goOn);

    Task AddBetweenGates(TxnContext ctx, int delta, string at, string goOn);
}

public sealed class PromotionTestActor(Gates gates) : TransactionalActor<Counter>, IPromotionTestActor
{
    public async Task<int> Read(TxnContext ctx) => (await GetState(ctx, AccessMode.Read)).Value;

    public async Task Add(TxnContext ctx, int delta) => (await GetState(ctx, AccessMode.ReadWrite)).Value += delta;

    public async Task HoldBetweenGates(TxnContext ctx, string locked, string release)
    {
        await GetState(ctx, AccessMode.ReadWrite);
        gates.Signal(locked);
        await gates.Until(release);
    }

    // Pays each of `to` in turn, one after another: an attempt that dies at one never reaches the next.
    public async Task<int> PayEach(TxnContext ctx, int amount, ActorId[] to)
    {
        await Add(ctx, -amount * to.Length);
        foreach (var target in to)
        {
            await CallActor<IPromotionTestActor>(ctx, target, x => x.Add(ctx, amount));
        }

        return to.Length;
    }

    // As PayEach, to the actors of these keys: the call names no actor, so a promoted run learns them.
    public Task<int> PayKeys(TxnContext ctx, int amount, string[] keys) =>
        PayEach(ctx, amount, Array.ConvertAll(keys, ActorId.Create<IPromotionTestActor>));

    // Pays the first of `to` only: the call names actors it never calls.
    public Task<int> PayFirstOf(TxnContext ctx, ActorId[] to) => PayEach(ctx, 1, to[..1]);

    // Pays `to` through `via`: the root does not call `to` itself.
    public async Task PayThrough(TxnContext ctx, ActorId via, ActorId to)
    {
        await Add(ctx, -1);
        await CallActor<IPromotionTestActor>(ctx, via, x => x.PayEach(ctx, 1, [to]));
    }

    // Rounds of calls the call does not name (ReconnaissanceTests): b twice, then b again, which pays c.
    public async Task<int> PayInRounds(TxnContext ctx, string b, string c)
    {
        var paid = await PayKeys(ctx, 1, [b, b]);
        await PayThrough(ctx, ActorId.Create<IPromotionTestActor>(b), ActorId.Create<IPromotionTestActor>(c));
        return paid + 1;
    }

    // Pays the actor of key `to`, which stops in its code between two gates.
    public async Task<int> PayBetweenGates(TxnContext ctx, string to, string at, string goOn)
    {
        await Add(ctx, -1);
        await CallActor<IPromotionTestActor>(ctx, ActorId.Create<IPromotionTestActor>(to), x => x.AddBetweenGates(ctx, 1, at, goOn));
        return 1;
    }

    public async Task AddBetweenGates(TxnContext ctx, int delta, string at, string goOn)
    {
        gates.Signal(at);
        await gates.Until(goOn);
        await Add(ctx, delta);
    }

    public async Task<int> PayThenAbort(TxnContext ctx)
    {
        await Add(ctx, -1);
        throw new TransactionAbortedException(AbortReason.User, "the user changed their mind");
    }
}

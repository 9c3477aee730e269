using System.Collections.Concurrent;
using Orleans.Core.Internal;
using Snapper.Tests.Infrastructure;
using static Snapper.Tests.Act.PromotionSites;

namespace Snapper.Tests.Act;

/// <summary>
/// A promoted ACT whose body calls its actors in rounds runs as a reconnaissance (OLLP): no lock,
/// batch or log, nothing written; its PACT declares what it called, with how often, and commits in
/// one run. Each test's call site is primed as under skew, where the first runs of promoted starts
/// were refused, so the reconnaissance comes first; the last test has it come after a refused run.
/// </summary>
public sealed class ReconnaissanceTests
{
    private static readonly TimeSpan Bound = TimeSpan.FromSeconds(15);

    [Fact]
    public async Task A_body_that_calls_in_rounds_is_reconnoitred_writes_nothing_then_and_commits_in_one_PACT_run()
    {
        await using var silo = await TestSilo.StartAsync();
        var (a, b, c) = (Actor("r1-a"), Actor("r1-b"), Actor("r1-c"));
        var runs = new ConcurrentQueue<string>();

        // Rounds of calls the call does not name: b twice, then b again, which calls c.
        Func<IPromotionTestActor, TxnContext, Task<int>> body = (x, ctx) =>
        {
            runs.Enqueue(ctx.Reconnaissance ? "reconnaissance" : ctx.Mode.ToString());
            return x.PayInRounds(ctx, "r1-b", "r1-c");
        };
        AsUnderSkew(silo, body, firstRunsRefused: true);

        Assert.Equal(3, await silo.Client.RunAct(a, body).WaitAsync(Bound));

        // The PACT declared a once, b three times and c once: what the reconnaissance counted.
        Assert.Equal(["reconnaissance", "Pact"], runs);
        Assert.Equal((-3, 1, 1), (await Read(silo, a), await Read(silo, b), await Read(silo, c)));
        await silo.UntilResolved();
    }

    [Fact]
    public async Task A_reconnaissance_takes_no_lock_its_PACT_waits_for_the_one_held()
    {
        await using var silo = await TestSilo.StartAsync();
        var (a, b) = (Actor("r2-a"), Actor("r2-b"));
        var blocker = silo.Client.RunAct<IPromotionTestActor>(b, (x, ctx) => x.HoldBetweenGates(ctx, "r2 locked", "r2 release"));
        await silo.Gates.Until("r2 locked");
        var runs = 0;
        Func<IPromotionTestActor, TxnContext, Task<int>> body = (x, ctx) =>
        {
            Interlocked.Increment(ref runs);
            return x.PayKeys(ctx, 1, ["r2-b"]);
        };
        AsUnderSkew(silo, body, firstRunsRefused: true);

        // The reconnaissance went through b while the blocker held b's write lock.
        var transfer = silo.Client.RunAct(a, body);
        await Poll.Until(() => Volatile.Read(ref runs) == 2, "the reconnaissance ended and the PACT started while b was locked");
        Assert.False(transfer.IsCompleted);

        silo.Gates.Signal("r2 release");
        await blocker.WaitAsync(Bound);
        Assert.Equal(1, await transfer.WaitAsync(Bound));
        Assert.Equal(2, runs);
        Assert.Equal((-1, 1), (await Read(silo, a), await Read(silo, b)));
        await silo.UntilResolved();
    }

    [Fact]
    public async Task When_the_calls_change_after_the_reconnaissance_the_PACT_learns_them_and_converges()
    {
        await using var silo = await TestSilo.StartAsync();
        var (a, b, c) = (Actor("r3-a"), Actor("r3-b"), Actor("r3-c"));
        var runs = 0;

        // The reconnaissance pays b; every run after it pays c instead (its data changed meanwhile).
        Func<IPromotionTestActor, TxnContext, Task<int>> body = (x, ctx) =>
            x.PayKeys(ctx, 1, [Interlocked.Increment(ref runs) == 1 ? "r3-b" : "r3-c"]);
        AsUnderSkew(silo, body, firstRunsRefused: true);

        // The first PACT declared a and b and called c: refused, it ran again declaring c too.
        Assert.Equal(1, await silo.Client.RunAct(a, body).WaitAsync(Bound));
        Assert.Equal(3, runs);
        Assert.Equal((-1, 0, 1), (await Read(silo, a), await Read(silo, b), await Read(silo, c)));

        // Nothing holds b for the PACT that declared it and never called it.
        await silo.Client.RunPact<IPromotionTestActor>(b, (x, ctx) => x.Add(ctx, 5), AccessSet.Of(b)).WaitAsync(Bound);
        Assert.Equal(5, await Read(silo, b));
        await silo.UntilResolved();
    }

    [Fact]
    public async Task A_reconnaissance_that_fails_tells_the_caller_nothing_the_PACT_does()
    {
        await using var silo = await TestSilo.StartAsync();
        var (a, b) = (Actor("r4-a"), Actor("r4-b"));
        var runs = 0;
        Func<IPromotionTestActor, TxnContext, Task<int>> body = (x, ctx) =>
            Interlocked.Increment(ref runs) == 1 ? x.PayThenAbort(ctx) : x.PayKeys(ctx, 1, ["r4-b"]);
        AsUnderSkew(silo, body, firstRunsRefused: true);

        // The reconnaissance's user abort is no abort: the PACT, declaring a alone, learned b and committed.
        Assert.Equal(1, await silo.Client.RunAct(a, body).WaitAsync(Bound));
        Assert.Equal(3, runs);
        Assert.Equal((-1, 1), (await Read(silo, a), await Read(silo, b)));
        await silo.UntilResolved();
    }

    [Fact]
    public async Task A_body_that_reads_its_tid_before_its_call_is_not_reconnoitred()
    {
        await using var silo = await TestSilo.StartAsync();

        // The reconnaissance stopped at the tid (a reconnaissance has none to give), sending
        // nothing; the runs after it were placed up front, and no later one is reconnoitred.
        await TidFirstBodyIsPlacedUpFront(silo, "r5", firstRunsRefused: true, (x, ctx, b) => x.PayKeys(ctx, 1, [b.Key]));
    }

    [Fact]
    public async Task An_actor_whose_activation_goes_while_a_reconnaissance_runs_there_is_none_the_worse()
    {
        await using var silo = await TestSilo.StartAsync();
        var (a, b) = (Actor("r6-a"), Actor("r6-b"));
        var runs = 0;
        Func<IPromotionTestActor, TxnContext, Task<int>> body = (x, ctx) =>
            Interlocked.Increment(ref runs) == 1
                ? x.PayBetweenGates(ctx, "r6-b", "r6 at b", "r6 go on")
                : x.PayKeys(ctx, 1, ["r6-b"]);
        AsUnderSkew(silo, body, firstRunsRefused: true);
        Assert.Equal(0, await Read(silo, b));

        // The reconnaissance waits in b's code while b is asked to deactivate: b goes once it returns.
        var transfer = silo.Client.RunAct(a, body);
        await silo.Gates.Until("r6 at b");
        var going = silo.Grains.GetGrain<IPromotionTestActor>("r6-b").AsReference<IGrainManagementExtension>().DeactivateOnIdle().AsTask();
        silo.Gates.Signal("r6 go on");
        await going.WaitAsync(Bound);

        Assert.Equal(1, await transfer.WaitAsync(Bound));
        Assert.Equal((-1, 1), (await Read(silo, a), await Read(silo, b)));
        await silo.UntilResolved();
    }

    [Fact]
    public async Task A_first_run_refused_is_followed_by_a_reconnaissance_that_learns_every_round_at_once()
    {
        await using var silo = await TestSilo.StartAsync();
        var (a, b, c) = (Actor("r7-a"), Actor("r7-b"), Actor("r7-c"));
        var runs = new ConcurrentQueue<string>();
        Func<IPromotionTestActor, TxnContext, Task<int>> body = (x, ctx) =>
        {
            runs.Enqueue(ctx.Reconnaissance ? "reconnaissance" : ctx.Mode.ToString());
            return x.PayInRounds(ctx, "r7-b", "r7-c");
        };
        var contention = AsUnderSkew(silo, body); // promoted at once; first runs' refusals not measured yet

        // The first run declared a alone and was refused at b; the reconnaissance learned b's three
        // calls and c, where a refused run each would have learned one round.
        Assert.Equal(3, await silo.Client.RunAct(a, body).WaitAsync(Bound));
        Assert.Equal(["Pact", "reconnaissance", "Pact"], runs);
        Assert.Equal((-3, 1, 1), (await Read(silo, a), await Read(silo, b), await Read(silo, c)));

        // That refusal counts: with most first runs refused, the next start reconnoitres first.
        Assert.True(contention.Reconnoitres());
        await silo.UntilResolved();
    }
}

using SmallBank;
using Snapper.Logging;
using Snapper.Tests.Infrastructure;

namespace Snapper.Tests.Pact;

/// <summary>PACTs: deterministic batches on the coordinator ring, batch commit, aborts and declarations.</summary>
public sealed class PactTests
{
    private static ActorId Actor(string key) => ActorId.Create<ITestActor>(key);

    private static ActorId Recorder(int key) => ActorId.Create<IRecorderActor>(key);

    private static Task<int> Value(TestSilo silo, ActorId id) => silo.Client.RunAct<ITestActor, int>(id, (a, ctx) => a.Read(ctx));

    [Fact]
    public async Task A_single_actor_PACT_and_a_two_actor_PACT_commit()
    {
        await using var silo = await TestSilo.StartAsync();
        var (a, b) = (Actor("a"), Actor("b"));

        await silo.Client.RunPact<ITestActor>(a, (x, ctx) => x.Add(ctx, 5), AccessSet.Of(a));
        await silo.Client.RunPact<ITestActor>(a, (x, ctx) => x.AddThenCall(ctx, 1, b, 2), AccessSet.Of(a).And(b));

        Assert.Equal(6, await Value(silo, a));
        Assert.Equal(2, await Value(silo, b));
    }

    [Theory]
    [InlineData(1)]
    [InlineData(4)]
    public async Task Any_two_PACTs_run_in_the_same_order_on_every_actor_they_share(int coordinators)
    {
        await using var silo = await TestSilo.StartAsync(s => s.Configure(o => o.CoordinatorCount = coordinators));
        var recorders = Enumerable.Range(0, 6).Select(Recorder).ToArray();
        var random = new Random(11);
        var plans = Enumerable.Range(0, 300).Select(_ => recorders.OrderBy(_ => random.Next()).Take(random.Next(1, 5)).ToArray()).ToArray();

        var tids = await Task.WhenAll(plans.Select(plan =>
            silo.Client.RunPact<IRecorderActor, long>(
                plan[0],
                async (r, ctx) =>
                {
                    await r.RecordEverywhere(ctx, plan[1..]);
                    return ctx.Tid;
                },
                plan.Aggregate(AccessSet.Of(plan[0]), (set, actor) => actor == plan[0] ? set : set.And(actor)))));

        Assert.Equal(tids.Length, tids.Distinct().Count());
        var journals = new Dictionary<ActorId, List<long>>();
        foreach (var recorder in recorders)
        {
            journals[recorder] = await silo.Client.RunPact<IRecorderActor, List<long>>(recorder, (r, ctx) => r.Seen(ctx), AccessSet.Of(recorder));
        }

        // Every actor ran its PACTs in tid order, so any two PACTs are ordered alike wherever both ran.
        foreach (var (recorder, seen) in journals)
        {
            Assert.True(seen.SequenceEqual(seen.Order()), $"{recorder} ran PACTs out of tid order: {string.Join(",", seen)}");
        }

        for (var i = 0; i < plans.Length; i++)
        {
            foreach (var recorder in plans[i])
            {
                Assert.Single(journals[recorder], t => t == tids[i]);
            }
        }

        Assert.Equal(plans.Sum(p => p.Length), journals.Values.Sum(j => j.Count));
    }

    [Theory]
    [InlineData(1)]
    [InlineData(4)]
    public async Task A_thousand_concurrent_PACTs_on_three_hot_accounts_never_abort_and_conserve_money(int coordinators)
    {
        await using var silo = await TestSilo.StartAsync(s => s.Configure(o => o.CoordinatorCount = coordinators));
        var accounts = Enumerable.Range(0, 3).Select(i => ActorId.Create<IAccountActor>(i)).ToArray();

        await Task.WhenAll(Enumerable.Range(0, 1000).Select(i =>
        {
            var from = accounts[i % 3];
            var to = accounts.Where(a => a != from).ToArray();
            return silo.Client.RunPact<IAccountActor, decimal>(
                from, (a, ctx) => a.MultiTransfer(ctx, new MultiTransferInput(1 + (i % 7), to)), AccessSet.Of(from).And(to[0]).And(to[1]));
        }));

        var total = 0m;
        foreach (var account in accounts)
        {
            total += await silo.Client.RunPact<IAccountActor, decimal>(account, (a, ctx) => a.Balance(ctx), AccessSet.Of(account));
        }

        Assert.Equal(3 * 2 * Account.InitialBalance, total);
        await silo.UntilResolved();
    }

    [Fact]
    public async Task A_user_abort_in_its_own_turn_aborts_only_that_PACT_and_the_others_commit()
    {
        await using var silo = await TestSilo.StartAsync();
        var (a, b) = (Actor("ua"), Actor("ub"));
        await silo.Client.RunPact<ITestActor>(a, (x, ctx) => x.AddThenCall(ctx, 10, b, 10), AccessSet.Of(a).And(b));

        // A burst in which one PACT throws after writing on both actors: it sees User and takes its
        // writes back in its own turns, before anyone read them, so every other PACT commits.
        var burst = Enumerable.Range(0, 40).Select(i => i == 20
            ? silo.Client.RunPact<ITestActor>(a, (x, ctx) => x.AddThenCallThrowing(ctx, 1000, b), AccessSet.Of(a).And(b))
            : silo.Client.RunPact<ITestActor>(a, (x, ctx) => x.AddThenCall(ctx, 1, b, 1), AccessSet.Of(a).And(b))).ToArray();
        var outcomes = await Task.WhenAll(burst.Select(async t =>
        {
            try
            {
                await t;
                return (AbortReason?)null;
            }
            catch (TransactionAbortedException e)
            {
                return e.Reason;
            }
        }));

        Assert.Equal(AbortReason.User, outcomes[20]);
        Assert.All(outcomes.Where((_, i) => i != 20), o => Assert.Null(o));
        var committed = outcomes.Count(o => o is null);

        // Nothing of the aborted PACTs remains; every committed one is there.
        Assert.Equal(10 + committed, await silo.Client.RunPact<ITestActor, int>(a, (x, ctx) => x.Read(ctx), AccessSet.Of(a)));
        Assert.Equal(10 + committed, await silo.Client.RunPact<ITestActor, int>(b, (x, ctx) => x.Read(ctx), AccessSet.Of(b)));

        await silo.Client.RunPact<ITestActor>(a, (x, ctx) => x.AddThenCall(ctx, 1, b, 1), AccessSet.Of(a).And(b));
        Assert.Equal(11 + committed, await Value(silo, b));
    }

    [Fact]
    public async Task More_calls_than_declared_abort_with_DeclarationError_naming_the_actor()
    {
        await using var silo = await TestSilo.StartAsync();
        var (a, b) = (Actor("m1"), Actor("m2"));

        var aborted = await Assert.ThrowsAsync<TransactionAbortedException>(() =>
            silo.Client.RunPact<ITestActor>(a, (x, ctx) => x.AddTwiceOn(ctx, b), AccessSet.Of(a).And(b, 1)));

        Assert.Equal(AbortReason.DeclarationError, aborted.Reason);
        Assert.Contains($"declared 1 call(s) on actor {b}", aborted.Message);
        Assert.Equal(0, await Value(silo, a));
        Assert.Equal(0, await Value(silo, b));
    }

    [Fact]
    public async Task A_call_to_an_undeclared_actor_aborts_with_DeclarationError_naming_it()
    {
        await using var silo = await TestSilo.StartAsync();
        var (a, b) = (Actor("d1"), Actor("d2"));

        var aborted = await Assert.ThrowsAsync<TransactionAbortedException>(() =>
            silo.Client.RunPact<ITestActor>(a, (x, ctx) => x.AddThenCall(ctx, 1, b, 1), AccessSet.Of(a)));

        Assert.Equal(AbortReason.DeclarationError, aborted.Reason);
        Assert.Contains($"called actor {b}, which its declaration does not name", aborted.Message);
        Assert.Equal(0, await Value(silo, a));
    }

    [Fact]
    public async Task A_declared_actor_that_is_never_called_is_released_when_the_body_returns()
    {
        // The declaration timeout would abort the PACT (DeclarationError) were the actor not released.
        await using var silo = await TestSilo.StartAsync();
        var (a, idle) = (Actor("n1"), Actor("n2"));

        await silo.Client.RunPact<ITestActor>(a, (x, ctx) => x.Add(ctx, 1), AccessSet.Of(a).And(idle)).WaitAsync(TimeSpan.FromSeconds(8));
        Assert.Equal(1, await Value(silo, a));

        // Later PACTs on both actors run.
        await silo.Client.RunPact<ITestActor>(a, (x, ctx) => x.AddThenCall(ctx, 1, idle, 1), AccessSet.Of(a).And(idle));
        Assert.Equal(1, await Value(silo, idle));
    }

    [Fact]
    public async Task A_PACT_whose_first_actor_is_not_declared_is_refused_before_it_runs()
    {
        await using var silo = await TestSilo.StartAsync();
        var aborted = await Assert.ThrowsAsync<TransactionAbortedException>(() =>
            silo.Client.RunPact<ITestActor>(Actor("f1"), (x, ctx) => x.Add(ctx, 1), AccessSet.Of(Actor("f2"))));
        Assert.Equal(AbortReason.DeclarationError, aborted.Reason);
        Assert.Contains("which its declaration does not name", aborted.Message);
    }

    [Fact]
    public async Task A_batch_logs_BatchInfo_then_the_written_states_then_BatchCommit()
    {
        await using var silo = await TestSilo.StartAsync(s => s.Configure(o => o.CoordinatorCount = 1));
        var (a, b) = (Actor("l1"), Actor("l2"));
        await silo.Client.RunPact<ITestActor>(a, (x, ctx) => x.AddThenCall(ctx, 3, b, 4), AccessSet.Of(a).And(b));

        var records = await silo.LogRecords();
        var info = Assert.Single(records.OfType<BatchInfoRecord>());
        Assert.Equal(new[] { a, b }.OrderBy(x => x.Key), info.Participants.OrderBy(x => x.Key));
        var completes = records.OfType<BatchCompleteRecord>().ToList();
        Assert.Equal(2, completes.Count);
        Assert.All(completes, c => Assert.Equal(info.Bid, c.Bid));
        Assert.Equal(info.Bid, Assert.Single(records.OfType<BatchCommitRecord>()).Bid);
    }

    [Fact]
    public async Task An_idle_ring_parks_its_token_and_wakes_for_the_next_PACT()
    {
        await using var silo = await TestSilo.StartAsync(s => s.Configure(o => o.CoordinatorCount = 3));
        var a = Actor("idle");
        await silo.Client.RunPact<ITestActor>(a, (x, ctx) => x.Add(ctx, 1), AccessSet.Of(a));

        await Poll.Until(async () => (await silo.Ring()).Parked, "the token parks");

        await silo.Client.RunPact<ITestActor>(a, (x, ctx) => x.Add(ctx, 1), AccessSet.Of(a)).WaitAsync(TimeSpan.FromSeconds(10));
        Assert.Equal(2, await Value(silo, a));
    }
}

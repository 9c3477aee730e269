using Microsoft.Extensions.DependencyInjection;
using Snapper.Tests.Infrastructure;

namespace Snapper.Tests.Act;

/// <summary>A failure anywhere in the call tree aborts and rolls back every participant.</summary>
public sealed class AbortPropagationTests
{
    private static ActorId Actor(string key) => ActorId.Create<ITestActor>(key);

    private static Task<int> Value(TestSilo silo, ActorId id) => silo.Client.RunAct<ITestActor, int>(id, (a, ctx) => a.Read(ctx));

    [Fact]
    public async Task An_exception_in_a_nested_call_aborts_the_root_with_the_original_inside()
    {
        await using var silo = await TestSilo.StartAsync();
        var (root, nested) = (Actor("root"), Actor("nested"));

        var aborted = await Assert.ThrowsAsync<TransactionAbortedException>(() =>
            silo.Client.RunAct<ITestActor>(root, (a, ctx) => a.AddThenCallThrowing(ctx, 7, nested)));

        Assert.Equal(AbortReason.User, aborted.Reason);
        var original = Assert.IsType<InvalidOperationException>(aborted.InnerException);
        Assert.Equal("nested boom", original.Message);
        Assert.Equal(0, await Value(silo, root));
        Assert.Equal(0, await Value(silo, nested));
        silo.AssertQuiescent<Counter>(root, nested);
    }

    [Fact]
    public async Task A_nested_failure_swallowed_by_user_code_still_aborts_everything()
    {
        await using var silo = await TestSilo.StartAsync();
        var (root, nested) = (Actor("r2"), Actor("n2"));

        var aborted = await Assert.ThrowsAsync<TransactionAbortedException>(() =>
            silo.Client.RunAct<ITestActor>(root, (a, ctx) => a.AddThenSwallowNestedFailure(ctx, 3, nested)));

        Assert.Equal(AbortReason.User, aborted.Reason);
        Assert.Equal("swallowed boom", aborted.InnerException!.Message);
        Assert.Equal(0, await Value(silo, root));
        Assert.Equal(0, await Value(silo, nested));
        silo.AssertQuiescent<Counter>(root, nested);
    }

    [Fact]
    public async Task A_failed_nested_call_with_a_result_throws_into_the_callers_code_and_aborts_everything()
    {
        // A failed call's exception reaches the caller as a failed response (thrown once, where the
        // result is read), not thrown by Snapper's filter: the caller's code must still see it, and
        // the ACT must still abort although that code catches it.
        await using var silo = await TestSilo.StartAsync();
        var (root, nested) = (Actor("r3"), Actor("n3"));

        var aborted = await Assert.ThrowsAsync<TransactionAbortedException>(() =>
            silo.Client.RunAct<ITestActor, int>(root, (a, ctx) => a.AddThenSwallowNestedValueFailure(ctx, 5, nested)));

        Assert.Equal(AbortReason.User, aborted.Reason);
        Assert.Equal("value boom", Assert.IsType<InvalidOperationException>(aborted.InnerException).Message);
        Assert.Equal(0, await Value(silo, root));
        Assert.Equal(0, await Value(silo, nested));
        silo.AssertQuiescent<Counter>(root, nested);
    }

    [Fact]
    public async Task A_three_actor_chain_commits_on_every_actor()
    {
        await using var silo = await TestSilo.StartAsync();
        var (a, b) = (Actor("c1"), Actor("c2"));

        await silo.Client.RunAct<ITestActor>(a, (x, ctx) => x.AddThenCall(ctx, 1, b, 2));
        await silo.Client.RunAct<ITestActor>(b, (x, ctx) => x.AddThenCall(ctx, 10, a, 20));

        Assert.Equal(21, await Value(silo, a));
        Assert.Equal(12, await Value(silo, b));
        silo.AssertQuiescent<Counter>(a, b);
    }

    /// <summary>
    /// Issue 50 (<c>--nemesis timeout</c>): a nested call ran and took its actor's lock, and its
    /// answer was lost. The root knew nothing of the callee, so its Abort did not go there, and the
    /// callee held the lock until the transaction's deadline had passed. The root tells the actor
    /// a lost call was made to as well.
    /// </summary>
    [Fact]
    public async Task The_actor_of_a_call_whose_answer_was_lost_hears_the_abort_and_frees_its_lock()
    {
        var lose = new LoseAnswerTo("lost-answer-b");
        await using var silo = await TestSilo.StartAsync(
            s => s.Configure(o => (o.Promote, o.TransactionTimeout) = (false, TimeSpan.FromMinutes(2))),
            services => services.AddSingleton<IIncomingGrainCallFilter>(lose));
        var (root, callee) = (Actor("lost-answer-a"), Actor("lost-answer-b"));

        var aborted = await Assert.ThrowsAsync<TransactionAbortedException>(() =>
            silo.Client.RunAct<ITestActor>(root, (a, ctx) => a.AddThenCall(ctx, 1, callee, 10)).WaitAsync(TimeSpan.FromSeconds(30)));
        Assert.True(lose.Lost, "no answer was lost: the test tested nothing");
        Assert.Equal(AbortReason.Failure, aborted.Reason);

        // Well before the two-minute deadline: the callee's lock is free, its write rolled back.
        await silo.Client.RunAct<ITestActor>(callee, (a, ctx) => a.Add(ctx, 5)).WaitAsync(TimeSpan.FromSeconds(20));
        Assert.Equal((0, 5), (await Value(silo, root), await Value(silo, callee)));
        silo.AssertQuiescent<Counter>(root, callee);
    }

    /// <summary>
    /// As above, one level deeper: the lost call's actor called another, which only it knows of.
    /// The Abort goes on from the first to the second.
    /// </summary>
    [Fact]
    public async Task The_actors_a_lost_call_reached_in_turn_hear_the_abort_too()
    {
        var lose = new LoseAnswerTo("lost-deep-b");
        await using var silo = await TestSilo.StartAsync(
            s => s.Configure(o => (o.Promote, o.TransactionTimeout) = (false, TimeSpan.FromMinutes(2))),
            services => services.AddSingleton<IIncomingGrainCallFilter>(lose));
        var (root, middle, last) = (Actor("lost-deep-a"), Actor("lost-deep-b"), Actor("lost-deep-c"));

        var aborted = await Assert.ThrowsAsync<TransactionAbortedException>(() =>
            silo.Client.RunAct<ITestActor>(root, (a, ctx) => a.AddThenCallOnward(ctx, 1, middle, last)).WaitAsync(TimeSpan.FromSeconds(30)));
        Assert.True(lose.Lost, "no answer was lost: the test tested nothing");
        Assert.Equal(AbortReason.Failure, aborted.Reason);

        await silo.Client.RunAct<ITestActor>(last, (a, ctx) => a.Add(ctx, 5)).WaitAsync(TimeSpan.FromSeconds(20));
        await silo.Client.RunAct<ITestActor>(middle, (a, ctx) => a.Add(ctx, 7)).WaitAsync(TimeSpan.FromSeconds(20));
        Assert.Equal((0, 7, 5), (await Value(silo, root), await Value(silo, middle), await Value(silo, last)));
        silo.AssertQuiescent<Counter>(root, middle, last);
    }

    /// <summary>
    /// A helper's review of the two above: a call given up for its response timeout may only be
    /// slow, still running, with a call of its own under way that holds a lock further on. The
    /// Abort goes on to the actors its calls are still on too.
    /// </summary>
    [Fact]
    public async Task A_call_given_up_while_it_still_runs_frees_the_lock_its_own_call_took_further_on()
    {
        await using var silo = await TestSilo.StartAsync(
            s => s.Configure(o => (o.Promote, o.TransactionTimeout) = (false, TimeSpan.FromMinutes(2))),
            services => services.Configure<Orleans.Configuration.SiloMessagingOptions>(o => o.ResponseTimeout = TimeSpan.FromSeconds(1)));
        var (root, middle, last) = (Actor("slow-a"), Actor("slow-b"), Actor("slow-c"));
        silo.Gates.Signal("slow may lock");

        var aborted = await Assert.ThrowsAsync<TransactionAbortedException>(() =>
            silo.Client.RunAct<ITestActor>(root, (a, ctx) => a.CallOnwardAddBetweenGates(ctx, middle, last, "slow may lock", "slow locked", "slow release")).WaitAsync(TimeSpan.FromSeconds(30)));
        Assert.Equal(AbortReason.Failure, aborted.Reason); // its call to the middle one timed out
        Assert.True(silo.Gates.IsSignalled("slow locked"), "the last call never locked: the test tested nothing");

        // The last call still runs (its release not signalled), and its lock is free.
        await silo.Client.RunAct<ITestActor>(last, (a, ctx) => a.Add(ctx, 5)).WaitAsync(TimeSpan.FromSeconds(20));
        silo.Gates.Signal("slow release");
        await Poll.Until(async () => await Value(silo, last) == 5 && await Value(silo, middle) == 0, "the given-up call's write is gone");
        silo.AssertQuiescent<Counter>(root, middle, last);
    }

    // Lets the first ACT call to one actor run there, then loses its answer (the callee's
    // execution info with it), as a response timeout does.
    private sealed class LoseAnswerTo(string key) : IIncomingGrainCallFilter
    {
        private int armed = 1;

        public bool Lost { get; private set; }

        public async Task Invoke(IIncomingGrainCallContext context)
        {
            await context.Invoke();
            if (context.TargetId.Key.ToString() == key && context.Request.GetArgumentCount() > 0 && context.Request.GetArgument(0) is TxnContext && Interlocked.Exchange(ref armed, 0) == 1)
            {
                Lost = true;
                throw new TimeoutException("the test lost the call's answer");
            }
        }
    }
}

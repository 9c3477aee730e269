using Snapper.Tests.Infrastructure;
using Snapper.Configuration;

namespace Snapper.Tests.Hybrid;

/// <summary>
/// Hybrid scheduling (Snapper §4.4), one hand-built interleaving per rule and per abort reason.
/// PACTs and ACTs are stopped at gates so each schedule is exact, not a matter of timing.
/// </summary>
public sealed class HybridSchedulingTests
{
    private static ActorId Actor(string key) => ActorId.Create<ITestActor>(key);

    private static Task<int> Value(TestSilo silo, ActorId id) => silo.Client.RunAct<ITestActor, int>(id, (a, ctx) => a.Read(ctx));

    private static Snapper.Scheduling.LocalSchedule Schedule(TestSilo silo, ActorId id) =>
        silo.Actor<Counter>(id).PactParticipant.Schedule;

    // Read from outside the actor's turn: a change under the enumeration just means "look again".
    private static bool HasBatches(TestSilo silo, ActorId id)
    {
        try
        {
            return Schedule(silo, id).HasBatches;
        }
        catch (InvalidOperationException)
        {
            return false;
        }
    }

    // What an ACT attempt meets beside batches is the subject: it is not promoted (ActOptions.Promote).
    private static Task<TestSilo> Start(TimeSpan deadlockTimeout) =>
        TestSilo.StartAsync(s => s.Configure(o => (o.DeadlockTimeout, o.Promote) = (deadlockTimeout, false)));

    [Fact]
    public async Task An_ACT_arriving_while_a_batch_runs_waits_for_it_to_complete_and_sees_its_write()
    {
        await using var silo = await Start(TimeSpan.FromSeconds(10));
        var x = Actor("x");
        var pact = silo.Client.RunPact<ITestActor>(x, (a, ctx) => a.AddBetweenGates(ctx, "go", "pact-wrote", "pact-done"), AccessSet.Of(x));
        silo.Gates.Signal("go");
        await silo.Gates.Until("pact-wrote");

        var act = silo.Client.RunAct<ITestActor, int>(x, (a, ctx) => a.Read(ctx));
        await Task.Delay(50);
        Assert.False(act.IsCompleted, "the ACT ran while the batch before it was still running");

        silo.Gates.Signal("pact-done");
        Assert.Equal(1, await act);
        await pact;
        silo.AssertQuiescent<Counter>(x);
    }

    [Fact]
    public async Task A_batch_placed_behind_an_ACT_starts_only_once_the_ACT_committed()
    {
        await using var silo = await Start(TimeSpan.FromSeconds(10));
        var x = Actor("x");
        var act = silo.Client.RunAct<ITestActor>(x, (a, ctx) => a.AddBetweenGates(ctx, "go", "act-wrote", "act-done"));
        silo.Gates.Signal("go");
        await silo.Gates.Until("act-wrote");

        var pact = silo.Client.RunPact<ITestActor, int>(x, (a, ctx) => a.AddThenRead(ctx, 10), AccessSet.Of(x));
        await Poll.Until(() => HasBatches(silo, x), "the batch reaches x");
        await Task.Delay(50);
        Assert.False(pact.IsCompleted, "the batch ran while the ACT before it had not committed");

        silo.Gates.Signal("act-done");
        await act;
        Assert.Equal(11, await pact); // it ran on the ACT's committed write
        silo.AssertQuiescent<Counter>(x);
    }

    [Fact]
    public async Task An_ACT_before_a_batch_on_one_actor_and_after_a_later_batch_on_another_fails_the_check()
    {
        // T before B0 on x; B1 > B0 has completed on y; T then reaches y, after B1:
        // max(BeforeSet) = B1 ≥ B0 = min(AfterSet). T must abort; B0 and B1 must stand.
        await using var silo = await Start(TimeSpan.FromSeconds(10));
        var (x, y) = (Actor("x"), Actor("y"));
        var act = silo.Client.RunAct<ITestActor>(x, (a, ctx) => a.AddWaitThenCall(ctx, "t-on-x", "t-go", y));
        await silo.Gates.Until("t-on-x");

        var b0 = silo.Client.RunPact<ITestActor>(x, (a, ctx) => a.Add(ctx, 10), AccessSet.Of(x));
        await Poll.Until(() => HasBatches(silo, x), "B0 is placed behind T on x");

        // B1 completes on y but cannot commit before B0 (commit in bid order), which waits for T.
        var b1 = silo.Client.RunPact<ITestActor>(y, (a, ctx) => a.Add(ctx, 100), AccessSet.Of(y));
        await Poll.Until(() => Schedule(silo, y).HighestCompletedBid > 0, "B1 completes on y");

        silo.Gates.Signal("t-go");
        var aborted = await Assert.ThrowsAsync<TransactionAbortedException>(() => act);
        Assert.Equal(AbortReason.SerializabilityViolation, aborted.Reason);
        Assert.Contains("max(BeforeSet)", aborted.Message);
        Assert.Equal((x, BlockedOn.Batch), (aborted.Blocker!.Actor, aborted.Blocker.WaitedFor)); // B0, placed behind T on x (issue 54)
        await b0;
        await b1;
        Assert.Equal(10, await Value(silo, x));
        Assert.Equal(100, await Value(silo, y));
        silo.AssertQuiescent<Counter>(x, y);
    }

    [Fact]
    public async Task An_ACT_after_an_earlier_batch_on_one_actor_and_before_a_later_one_on_another_commits()
    {
        // B1 commits on y first; then T holds x and B0 > B1 queues behind it; T reaches y after B1:
        // max(BeforeSet) = B1 < B0 = min(AfterSet), serial order B1, T, B0.
        await using var silo = await Start(TimeSpan.FromSeconds(10));
        var (x, y) = (Actor("x"), Actor("y"));
        await silo.Client.RunPact<ITestActor>(y, (a, ctx) => a.Add(ctx, 100), AccessSet.Of(y)); // B1
        var act = silo.Client.RunAct<ITestActor>(x, (a, ctx) => a.AddWaitThenCall(ctx, "t-on-x", "t-go", y));
        await silo.Gates.Until("t-on-x");
        var b0 = silo.Client.RunPact<ITestActor, int>(x, (a, ctx) => a.Read(ctx), AccessSet.Of(x));
        await Poll.Until(() => HasBatches(silo, x), "B0 is placed behind T on x");

        silo.Gates.Signal("t-go");
        await act;
        Assert.Equal(1, await b0); // B0 ran after T committed
        Assert.Equal(101, await Value(silo, y));
        silo.AssertQuiescent<Counter>(x, y);
    }

    [Fact]
    public async Task An_ACT_that_would_wait_for_a_batch_already_behind_it_aborts_at_once_instead_of_deadlocking()
    {
        // Fig. 9a: T holds x; PACT P (root y) runs on y and calls x, where its batch waits behind T;
        // T then calls y, where it would wait for P's batch. T aborts at once; P commits.
        await using var silo = await Start(TimeSpan.FromSeconds(30));
        var (x, y) = (Actor("x"), Actor("y"));
        var act = silo.Client.RunAct<ITestActor>(x, (a, ctx) => a.AddWaitThenCall(ctx, "t-on-x", "t-go", y));
        await silo.Gates.Until("t-on-x");
        var pact = silo.Client.RunPact<ITestActor>(y, (a, ctx) => a.AddThenCall(ctx, 1, x, 1), AccessSet.Of(y).And(x));
        await Poll.Until(() => HasBatches(silo, x), "P's batch is placed behind T on x");
        await Poll.Until(() => HasBatches(silo, y), "P's batch is placed on y, ahead of where T will arrive");

        var started = DateTime.UtcNow;
        silo.Gates.Signal("t-go");
        var aborted = await Assert.ThrowsAsync<TransactionAbortedException>(() => act);
        Assert.Equal(AbortReason.SerializabilityViolation, aborted.Reason);
        Assert.True(DateTime.UtcNow - started < TimeSpan.FromSeconds(20), "found by the deadlock timeout, not at once");
        Assert.Equal((x, BlockedOn.Batch), (aborted.Blocker!.Actor, aborted.Blocker.WaitedFor)); // P's batch, behind T on x (issue 54)
        await pact;
        Assert.Equal(1, await Value(silo, x));
        Assert.Equal(1, await Value(silo, y));
        silo.AssertQuiescent<Counter>(x, y);
    }

    [Fact]
    public async Task An_ACT_stuck_behind_a_batch_past_the_deadlock_timeout_aborts_with_Deadlock_and_the_PACT_goes_on()
    {
        await using var silo = await Start(TimeSpan.FromMilliseconds(50));
        var x = Actor("x");
        var pact = silo.Client.RunPact<ITestActor>(x, (a, ctx) => a.AddBetweenGates(ctx, "go", "pact-wrote", "pact-done"), AccessSet.Of(x));
        silo.Gates.Signal("go");
        await silo.Gates.Until("pact-wrote");

        var aborted = await Assert.ThrowsAsync<TransactionAbortedException>(() => silo.Client.RunAct<ITestActor>(x, (a, ctx) => a.Add(ctx, 5)));
        Assert.Equal(AbortReason.Deadlock, aborted.Reason);
        Assert.Contains("deadlock timeout", aborted.Message);
        Assert.Equal((x, BlockedOn.Batch), (aborted.Blocker!.Actor, aborted.Blocker.WaitedFor)); // the PACT's batch on x (issue 54)

        silo.Gates.Signal("pact-done");
        await pact;
        Assert.Equal(1, await Value(silo, x));
        silo.AssertQuiescent<Counter>(x);
    }

    [Fact]
    public async Task An_ACT_that_read_an_uncommitted_batch_with_nothing_after_it_aborts_as_uncertain_if_the_batch_does_not_commit_in_time()
    {
        await using var silo = await Start(TimeSpan.FromMilliseconds(50));
        var (x, y) = (Actor("x"), Actor("y"));
        var pact = silo.Client.RunPact<ITestActor>(y, (a, ctx) => a.CallThenWait(ctx, x, "p-called-x", "p-done", thenThrow: false), AccessSet.Of(y).And(x));
        await silo.Gates.Until("p-called-x"); // its batch completed on x, but runs on y: not committed

        var aborted = await Assert.ThrowsAsync<TransactionAbortedException>(() => silo.Client.RunAct<ITestActor, int>(x, (a, ctx) => a.Read(ctx)));
        Assert.Equal(AbortReason.SerializabilityUncertain, aborted.Reason);

        silo.Gates.Signal("p-done");
        await pact;
        Assert.Equal(1, await Value(silo, x)); // once the batch committed, the same read passes
        silo.AssertQuiescent<Counter>(x, y);
    }

    [Fact]
    public async Task An_ACT_that_read_a_batch_which_then_aborts_aborts_with_Cascading_and_leaves_nothing()
    {
        await using var silo = await Start(TimeSpan.FromSeconds(10));
        var (x, y) = (Actor("x"), Actor("y"));
        var pact = silo.Client.RunPact<ITestActor>(y, (a, ctx) => a.CallThenWait(ctx, x, "p-called-x", "p-fail", thenThrow: true), AccessSet.Of(y).And(x));
        await silo.Gates.Until("p-called-x");

        // The ACT builds on the batch's +1, and is held once it has: a fixed delay here let the
        // batch abort before the ACT read x, now and then, and the ACT then rightly committed.
        silo.Gates.Signal("act-start");
        var act = silo.Client.RunAct<ITestActor>(x, (a, ctx) => a.AddBetweenGates(ctx, "act-start", "act-added", "act-end"));
        await silo.Gates.Until("act-added");

        silo.Gates.Signal("p-fail");
        Assert.Equal(AbortReason.User, (await Assert.ThrowsAsync<TransactionAbortedException>(() => pact)).Reason);
        silo.Gates.Signal("act-end");
        Assert.Equal(AbortReason.Cascading, (await Assert.ThrowsAsync<TransactionAbortedException>(() => act)).Reason);
        Assert.Equal(0, await Value(silo, x));
        silo.AssertQuiescent<Counter>(x, y);
    }

    [Fact]
    public void The_deadlock_timeout_is_validated_by_name()
    {
        var result = new SnapperOptionsValidator().Validate(null, new SnapperOptions { DeadlockTimeout = TimeSpan.Zero });
        Assert.True(result.Failed);
        Assert.Contains(nameof(SnapperOptions.DeadlockTimeout), result.FailureMessage);
    }
}

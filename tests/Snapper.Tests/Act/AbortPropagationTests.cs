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
}

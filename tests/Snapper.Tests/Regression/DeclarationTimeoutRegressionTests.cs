using Snapper.Tests.Infrastructure;

namespace Snapper.Tests.Regression;

/// <summary>
/// A suspicion of issue 34: the declaration timeout (10 s by default) is shorter than the
/// transaction timeout (30 s), and counted from the batch's emission, so a batch queued behind a
/// slow ACT on one of its actors was aborted with DeclarationError, blaming a PACT that had made
/// every call it declared so far and was waiting for that actor.
/// </summary>
public sealed class DeclarationTimeoutRegressionTests
{
    private static readonly TimeSpan DeclarationTimeout = TimeSpan.FromMilliseconds(300);

    [Fact]
    public async Task A_batch_queued_behind_a_slow_ACT_longer_than_the_declaration_timeout_is_not_blamed_for_its_declaration()
    {
        await using var silo = await TestSilo.StartAsync(s => s.Configure(o => o.DeclarationTimeout = DeclarationTimeout));
        var (a, b) = (ActorId.Create<ITestActor>("slow-a"), ActorId.Create<ITestActor>("slow-b"));

        // An ACT holds b; the PACT runs on a and calls b, where its batch waits behind the ACT.
        silo.Gates.Signal("go");
        var act = silo.Client.RunAct<ITestActor>(b, (t, ctx) => t.AddBetweenGates(ctx, "go", "act-locked", "act-release"));
        await silo.Gates.Until("act-locked");
        var pact = silo.Client.RunPact<ITestActor>(a, (t, ctx) => t.AddThenCall(ctx, 1, b, 1), AccessSet.Of(a).And(b));

        // The declaration timeout passes several times over while the ACT (within its own, far
        // longer timeout) keeps b: the PACT is not aborted meanwhile.
        var early = await Task.WhenAny(pact, Task.Delay(10 * DeclarationTimeout));
        Assert.False(early == pact && pact.IsFaulted, $"the PACT aborted while queued behind the ACT: {pact.Exception?.InnerException?.Message}");

        silo.Gates.Signal("act-release");
        await act.WaitAsync(TimeSpan.FromSeconds(10));
        await pact.WaitAsync(TimeSpan.FromSeconds(10));
        Assert.Equal(1, await silo.Client.RunAct<ITestActor, int>(a, (t, ctx) => t.Read(ctx)));
        Assert.Equal(2, await silo.Client.RunAct<ITestActor, int>(b, (t, ctx) => t.Read(ctx)));
    }
}

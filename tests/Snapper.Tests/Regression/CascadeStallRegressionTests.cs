using Microsoft.Extensions.DependencyInjection;
using Snapper.Coordination;
using Snapper.Tests.Infrastructure;

namespace Snapper.Tests.Regression;

/// <summary>
/// Found by the nemesis test in act-elr mode, rarely (every PACT placement stopped and client
/// transactions waited past 45 s): an abort cascade holds the token until every
/// batch up to it has resolved, and a batch before it that had stalled (a PACT placed and never
/// called, a BatchMsg lost to a going activation) resolves only by the declaration sweep, which
/// did not run while a cascade was on. The ring waited for ever.
/// </summary>
public sealed class CascadeStallRegressionTests
{
    // 2 s, not 500 ms: on a loaded CI runner the PACT of batch b, which does make its calls, was
    // itself swept as late (DeclarationError) before it could throw (twice, 2026-12-07).
    private static readonly TimeSpan DeclarationTimeout = TimeSpan.FromSeconds(2);

    [Fact]
    public async Task A_cascade_sealed_behind_a_stalled_batch_ends_once_the_sweep_aborts_that_batch()
    {
        await using var silo = await TestSilo.StartAsync(s => s.Configure(o =>
        {
            o.CoordinatorCount = 1;
            o.DeclarationTimeout = DeclarationTimeout;
        }));
        var (stalled, root, written, other) =
            (ActorId.Create<ITestActor>("stalled"), ActorId.Create<ITestActor>("root"), ActorId.Create<ITestActor>("written"), ActorId.Create<ITestActor>("other"));

        // Batch b-1: a PACT placed and never called, as when its caller's answer was lost.
        var (_, coordinator) = await silo.Services.GetRequiredService<ICoordinatorDirectory>().ForPact(stalled);
        await coordinator.NewPact(stalled, AccessSet.Of(stalled));

        // Batch b: a PACT writes `written` and waits at its root; an ACT reads `written` meanwhile.
        var pact = silo.Client.RunPact<ITestActor>(root, (a, ctx) => a.CallThenWait(ctx, written, "called", "throw", thenThrow: true), AccessSet.Of(root).And(written));
        await silo.Gates.Until("called").WaitAsync(TimeSpan.FromSeconds(10));
        var act = silo.Client.RunAct<ITestActor, int>(written, (a, ctx) => a.ReadBetweenGates(ctx, "act-read", "act-release"));
        await silo.Gates.Until("act-read").WaitAsync(TimeSpan.FromSeconds(10));

        // The PACT throws; since an ACT read its actor, its write cannot be taken back alone, so
        // batch b aborts whole and the token seals a cascade while b-1 still waits for its call.
        silo.Gates.Signal("throw");
        var thrown = await Record.ExceptionAsync(() => pact.WaitAsync(TimeSpan.FromSeconds(30)));
        Assert.Equal(AbortReason.User, Assert.IsType<TransactionAbortedException>(thrown).Reason);
        silo.Gates.Signal("act-release");
        var read = await Record.ExceptionAsync(() => act.WaitAsync(TimeSpan.FromSeconds(30)));
        if (read is null)
        {
            Assert.Equal(0, await act); // never the aborted PACT's write
        }
        else
        {
            Assert.IsType<TransactionAbortedException>(read);
        }

        Assert.Equal(0, await silo.Client.RunAct<ITestActor, int>(written, (a, ctx) => a.Read(ctx)).WaitAsync(TimeSpan.FromSeconds(10)));

        // The ring goes on: a new PACT is placed and commits.
        await silo.Client.RunPact<ITestActor>(other, (a, ctx) => a.Add(ctx, 1), AccessSet.Of(other)).WaitAsync(TimeSpan.FromSeconds(20));
        Assert.Equal(1, await silo.Client.RunAct<ITestActor, int>(other, (a, ctx) => a.Read(ctx)).WaitAsync(TimeSpan.FromSeconds(10)));
    }
}

using Microsoft.Extensions.DependencyInjection;
using Snapper.Protocol;
using Snapper.Tests.Infrastructure;

namespace Snapper.Tests.Regression;

/// <summary>
/// Issue 50 (`--nemesis delay`, only BatchMsgs delayed: 449 txn/s against ~17,000 calm): a call of
/// a PACT that reached its actor before the batch's BatchMsg waited for it, and with it every batch
/// behind it there and, through the commit order, everywhere. The actor asks the coordinator for
/// its sub-batch instead; the BatchMsg, when it comes, is a duplicate and changes nothing.
/// </summary>
public sealed class LateBatchMsgRegressionTests
{
    private static readonly TimeSpan Bound = TimeSpan.FromSeconds(5);

    [Fact]
    public async Task A_call_that_comes_before_its_batchmsg_runs_and_the_late_batchmsg_is_a_duplicate()
    {
        var filter = new HoldOneBatchMsg();
        await using var silo = await TestSilo.StartAsync(services: s => s.AddSingleton<IOutgoingGrainCallFilter>(sp => filter.With(sp.GetRequiredService<Gates>())));
        var (root, callee) = (ActorId.Create<ITestActor>("early-call-root"), ActorId.Create<ITestActor>("early-call-callee"));
        filter.HoldTo = callee.Key;

        // The callee's BatchMsg is held at its sender; the root's call reaches the callee first.
        await silo.Client.RunPact<ITestActor>(root, (a, ctx) => a.AddThenCall(ctx, 1, callee, 2), AccessSet.Of(root).And(callee)).WaitAsync(Bound);
        Assert.True(silo.Gates.IsSignalled("batchmsg held"), "no BatchMsg was held: the test tested nothing");

        // The held BatchMsg arrives after its batch committed there: nothing runs again.
        silo.Gates.Signal("batchmsg release");
        await silo.Gates.Until("batchmsg delivered");
        await silo.Client.RunPact<ITestActor>(callee, (a, ctx) => a.Add(ctx, 5), AccessSet.Of(callee)).WaitAsync(Bound);
        Assert.Equal(7, await silo.Client.RunAct<ITestActor, int>(callee, (a, ctx) => a.Read(ctx)).WaitAsync(Bound));
        Assert.Equal(1, await silo.Client.RunAct<ITestActor, int>(root, (a, ctx) => a.Read(ctx)).WaitAsync(Bound));
    }

    // Holds the first BatchMsg (OnBatch) sent to the actor of key HoldTo until "batchmsg release".
    private sealed class HoldOneBatchMsg : IOutgoingGrainCallFilter
    {
        private Gates? gates;
        private int held;

        public string? HoldTo { get; set; }

        public HoldOneBatchMsg With(Gates shared)
        {
            gates = shared;
            return this;
        }

        public async Task Invoke(IOutgoingGrainCallContext context)
        {
            if (context.InterfaceMethod?.Name == nameof(ISnapperParticipant.OnBatch) && HoldTo is { } key
                && context.TargetId.Key.ToString() == key && Interlocked.Exchange(ref held, 1) == 0)
            {
                gates!.Signal("batchmsg held");
                await gates.Until("batchmsg release");
                await context.Invoke();
                gates.Signal("batchmsg delivered");
                return;
            }

            await context.Invoke();
        }
    }
}

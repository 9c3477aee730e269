using Microsoft.Extensions.DependencyInjection;
using Orleans.Configuration;
using Snapper.Hosting;
using Snapper.Tests.Infrastructure;

namespace Snapper.Tests.Regression;

/// <summary>
/// Issue 50: under <c>--nemesis delay</c> (5% of grain calls wait 5-300 ms before they are sent)
/// PACT fell to 280 txn/s from 15,000 on SmallBank: a PACT's nested call on its way kept the PACT's
/// turn on its caller and its callee, and every later batch on both waited with it; one such call
/// in a batch held the batch, and batches commit in order, so the whole pipeline moved at the pace
/// of its slowest call. Now a call still on its way when its caller asks about it is refused ahead
/// by its callee, and the PACT runs again. Here the response timeout is a minute and a call is held
/// before it runs for half of it: the transactions must finish long before, and the held call must
/// not run when it comes.
/// </summary>
public sealed class LateCallRegressionTests
{
    private static readonly TimeSpan ResponseTimeout = TimeSpan.FromSeconds(60);
    private static readonly TimeSpan Bound = TimeSpan.FromSeconds(10);

    /// <summary>A nested call is held on its way: the PACT gives up its turn, runs again and commits once; the held call is refused.</summary>
    [Fact]
    public async Task A_PACT_whose_nested_call_is_late_on_its_way_runs_again_and_the_late_call_is_refused_when_it_comes()
    {
        await using var silo = await StartHolding(calls: 1, TimeSpan.FromSeconds(30));
        var (x, y) = (ActorId.Create<ITestActor>("on-its-way-x"), ActorId.Create<ITestActor>("on-its-way-y"));

        var first = silo.Client.RunPact<ITestActor, int>(x, (a, ctx) => a.AddThenCallForValue(ctx, 1, y, 5), AccessSet.Of(x).And(y));
        Assert.Equal(5, await first.WaitAsync(Bound)); // its second run's call was not held
        await silo.Client.RunPact<ITestActor>(y, (a, ctx) => a.Add(ctx, 1), AccessSet.Of(y)).WaitAsync(Bound); // the batches behind it go on

        var holder = silo.Services.GetRequiredService<HoldCallsOnTheirWay>();
        Assert.Equal(1, holder.Held);
        holder.Release();
        // Refused: as LateCall while its batch is not resolved here, as a call past its batch after.
        await Assert.ThrowsAsync<TransactionAbortedException>(() => holder.FirstHeldOutcome.WaitAsync(Bound));
        Assert.Equal(1, await Read(silo, x)); // the first run's write was taken back
        Assert.Equal(6, await Read(silo, y)); // the held call did not add its 5 again
    }

    /// <summary>
    /// A start call that comes after its PACT was aborted (here by the declaration sweep: it waited
    /// past the declaration timeout) and its batch resolved is answered with the refusal at once. It
    /// used to wait for a later batch to commit on the root, and then answer "committed".
    /// </summary>
    [Fact]
    public async Task A_start_call_that_comes_after_its_PACT_aborted_and_its_batch_resolved_is_told_so_not_committed()
    {
        // Short enough to sweep the held call soon, long enough that the later PACTs' own start
        // calls, slow on a loaded machine, are not swept too (at 300 ms one was, once).
        await using var silo = await StartHolding(calls: 1, TimeSpan.FromSeconds(30), nameof(ITestActor.Add), s => s.Configure(o => o.DeclarationTimeout = TimeSpan.FromSeconds(2)));
        var holder = silo.Services.GetRequiredService<HoldCallsOnTheirWay>();
        var x = ActorId.Create<ITestActor>("start-after-resolution");

        var first = silo.Client.RunPact<ITestActor>(x, (a, ctx) => a.Add(ctx, 1), AccessSet.Of(x));
        await holder.FirstHeld.WaitAsync(Bound);
        await silo.Client.RunPact<ITestActor>(x, (a, ctx) => a.Add(ctx, 10), AccessSet.Of(x)).WaitAsync(Bound); // after the sweep
        holder.Release();
        await Assert.ThrowsAsync<TransactionAbortedException>(() => holder.FirstHeldOutcome.WaitAsync(Bound)); // refused
        await silo.Client.RunPact<ITestActor>(x, (a, ctx) => a.Add(ctx, 100), AccessSet.Of(x)).WaitAsync(Bound); // a later commit

        Assert.Equal(AbortReason.DeclarationError, (await Assert.ThrowsAsync<TransactionAbortedException>(() => first.WaitAsync(Bound))).Reason);
        Assert.Equal(110, await Read(silo, x));
    }

    /// <summary>
    /// Every call into the callee is late: a PACT gives up at most <see cref="SnapperClient.MaxLateCallRuns"/>
    /// times, then waits for its call and commits, instead of running again for ever.
    /// </summary>
    [Fact]
    public async Task A_PACT_whose_every_call_is_late_gives_up_a_bounded_number_of_times_then_waits_and_commits()
    {
        await using var silo = await StartHolding(calls: int.MaxValue, TimeSpan.FromSeconds(1));
        var (x, y) = (ActorId.Create<ITestActor>("always-late-x"), ActorId.Create<ITestActor>("always-late-y"));

        Assert.Equal(5, await silo.Client.RunPact<ITestActor, int>(x, (a, ctx) => a.AddThenCallForValue(ctx, 1, y, 5), AccessSet.Of(x).And(y)).WaitAsync(Bound * 2));

        Assert.Equal(SnapperClient.MaxLateCallRuns + 1, silo.Services.GetRequiredService<HoldCallsOnTheirWay>().Held);
        Assert.Equal(1, await Read(silo, x));
        Assert.Equal(5, await Read(silo, y));
    }

    /// <summary>
    /// A PACT gives up a late call after an ACT read its write on another actor: that write cannot
    /// be taken back alone, so its whole batch aborts and a cascade takes the batches emitted after
    /// it. Their PACTs did nothing wrong and run again, as the PACT that gave up does: none of their
    /// callers is told <see cref="AbortReason.Cascading"/> (the refusal was off by default for this).
    /// </summary>
    [Fact]
    public async Task The_PACTs_of_a_cascade_that_a_PACT_giving_up_a_late_call_started_run_again()
    {
        await using var silo = await StartHolding(calls: 1, TimeSpan.FromSeconds(30));
        var (root, x, y, other) = (ActorId.Create<ITestActor>("cascade-root"), ActorId.Create<ITestActor>("cascade-x"), ActorId.Create<ITestActor>("cascade-y"), ActorId.Create<ITestActor>("cascade-other"));

        // P writes x (its batch completes there) and waits at its root; an ACT reads x meanwhile.
        var p = silo.Client.RunPact<ITestActor, int>(root, (a, ctx) => a.CallThenWaitThenCall(ctx, x, "p-called-x", "p-go", y), AccessSet.Of(root).And(x).And(y));
        await silo.Gates.Until("p-called-x");
        var act = silo.Client.RunAct<ITestActor, int>(x, (a, ctx) => a.ReadBetweenGates(ctx, "act-read", "act-release"));
        await silo.Gates.Until("act-read");

        // Q, in a later batch, touches nothing of P's.
        var qRuns = 0;
        var q = silo.Client.RunPact<ITestActor>(other, (a, ctx) => { Interlocked.Increment(ref qRuns); return a.Add(ctx, 1); }, AccessSet.Of(other));
        await Poll.Until(async () => (await silo.LogRecords()).OfType<Snapper.Logging.BatchCompleteRecord>().Any(r => r.Actor == other), "Q's batch completed on its actor");

        // P's call into y is held on its way and refused ahead; the write on x cannot be taken back alone.
        silo.Gates.Signal("p-go");
        silo.Gates.Signal("act-release");
        Assert.Equal(5, await p.WaitAsync(Bound));
        await q.WaitAsync(Bound);
        Assert.Equal(2, qRuns); // the cascade took it, and it ran again: it was not told Cascading
        // The ACT aborts with the batch whose write it read, or, run again, reads P's second run's.
        Assert.True(await Record.ExceptionAsync(() => act.WaitAsync(Bound)) is null or TransactionAbortedException);

        var holder = silo.Services.GetRequiredService<HoldCallsOnTheirWay>();
        Assert.Equal(1, holder.Held);
        holder.Release();
        await Assert.ThrowsAsync<TransactionAbortedException>(() => holder.FirstHeldOutcome.WaitAsync(Bound)); // refused when it came
        Assert.Equal(1, await Read(silo, x));
        Assert.Equal(5, await Read(silo, y));
        Assert.Equal(1, await Read(silo, other));
        await silo.UntilResolved();
    }

    private static Task<TestSilo> StartHolding(int calls, TimeSpan hold, string method = nameof(ITestActor.AddThenRead), Action<SnapperBuilder>? configure = null) => TestSilo.StartAsync(
        s =>
        {
            s.Configure(o => o.RefuseLateCalls = true);
            configure?.Invoke(s);
        },
        services: services =>
        {
            services.AddSingleton(new HoldCallsOnTheirWay(method, calls, hold));
            services.AddSingleton<IIncomingGrainCallFilter>(sp => sp.GetRequiredService<HoldCallsOnTheirWay>());
            services.Configure<SiloMessagingOptions>(o => o.ResponseTimeout = ResponseTimeout);
        });

    private static Task<int> Read(TestSilo silo, ActorId id) => silo.Client.RunAct<ITestActor, int>(id, (actor, ctx) => actor.Read(ctx));

    /// <summary>
    /// Holds the first <paramref name="calls"/> calls of <paramref name="method"/> before they reach
    /// the actor (a slow network, a paused sender) for <paramref name="hold"/>, or until released.
    /// </summary>
    private sealed class HoldCallsOnTheirWay(string method, int calls, TimeSpan hold) : IIncomingGrainCallFilter
    {
        private readonly TaskCompletionSource released = new(TaskCreationOptions.RunContinuationsAsynchronously);
        private readonly TaskCompletionSource firstHeldOutcome = new(TaskCreationOptions.RunContinuationsAsynchronously);
        private readonly TaskCompletionSource firstHeld = new(TaskCreationOptions.RunContinuationsAsynchronously);
        private int held;

        public int Held => Volatile.Read(ref held);

        /// <summary>How the first held call ended once it ran: its result, or what it threw.</summary>
        public Task FirstHeldOutcome => firstHeldOutcome.Task;

        /// <summary>Completed once the first call is held.</summary>
        public Task FirstHeld => firstHeld.Task;

        /// <summary>Lets the held calls go.</summary>
        public void Release() => released.TrySetResult();

        public async Task Invoke(IIncomingGrainCallContext context)
        {
            if (context.MethodName != method || Interlocked.Increment(ref held) is var n && n > calls)
            {
                if (context.MethodName == method)
                {
                    Interlocked.Decrement(ref held);
                }

                await context.Invoke();
                return;
            }

            firstHeld.TrySetResult();
            await Task.WhenAny(released.Task, Task.Delay(hold));
            try
            {
                await context.Invoke();
                if (n == 1)
                {
                    firstHeldOutcome.TrySetResult();
                }
            }
            catch (Exception e) when (n == 1 && firstHeldOutcome.TrySetException(e))
            {
                throw;
            }
        }
    }
}

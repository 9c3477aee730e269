using Microsoft.Extensions.DependencyInjection;
using Orleans.Configuration;
using Snapper.Coordination;
using Snapper.State;
using Snapper.Tests.Infrastructure;

namespace Snapper.Tests.Regression;

/// <summary>
/// Issue 50: under <c>--nemesis timeout</c> (answers held past the response timeout after the
/// callee's work is done) PACT fell to 7 txn/s from 51,000 on 16 actors: a PACT waiting for a held
/// answer kept its turn, and every later batch on its actors waited with it, for the whole response
/// timeout (30 s by default); a failed PACT's report to its coordinator, answered late, failed its
/// whole batch. Here the response timeout is a minute and one answer is held for half of it: the
/// transactions must finish long before.
/// </summary>
public sealed class LateAnswerRegressionTests
{
    private static readonly TimeSpan ResponseTimeout = TimeSpan.FromSeconds(60);
    private static readonly TimeSpan Held = TimeSpan.FromSeconds(30);
    private static readonly TimeSpan Bound = TimeSpan.FromSeconds(10);

    /// <summary>The nested call's answer is held: its caller asks the callee, which gives the answer again.</summary>
    [Fact]
    public async Task A_PACT_whose_nested_answer_is_held_goes_on_with_the_answer_its_callee_gives_again()
    {
        await using var silo = await StartHolding(nameof(ITestActor.AddThenRead));
        var (x, y) = (ActorId.Create<ITestActor>("late-x"), ActorId.Create<ITestActor>("late-y"));

        var first = silo.Client.RunPact<ITestActor, int>(x, (a, ctx) => a.AddThenCallForValue(ctx, 1, y, 5), AccessSet.Of(x).And(y));
        Assert.Equal(5, await first.WaitAsync(Bound)); // the value y answered, though its answer is still held
        await silo.Client.RunPact<ITestActor>(y, (a, ctx) => a.Add(ctx, 1), AccessSet.Of(y)).WaitAsync(Bound); // the batches behind it go on

        var holder = silo.Services.GetRequiredService<HoldOneAnswer>();
        Assert.Equal(1, holder.Held);
        Assert.Equal(1, await Read(silo, x));
        Assert.Equal(6, await Read(silo, y));
        holder.Release();
    }

    /// <summary>
    /// A PACT calls an actor twice; the second call runs there long past the bound at which a late
    /// answer is asked about. Its caller must get the second call's answer (11), never the first's
    /// (1), which the callee had already given (review of the first version, which gave it).
    /// </summary>
    [Fact]
    public async Task A_second_call_still_running_is_not_answered_with_the_first_call_s_answer()
    {
        await using var silo = await StartHolding("nothing is held");
        var (x, y) = (ActorId.Create<ITestActor>("twice-x"), ActorId.Create<ITestActor>("twice-y"));

        var pact = silo.Client.RunPact<ITestActor, int>(x, (a, ctx) => a.CallTwiceForSecondValue(ctx, y, "second-running", "second-release"), AccessSet.Of(x).And(y, 2));
        await silo.Gates.Until("second-running");
        await Task.Delay(LateAnswers.AskCeiling); // every bound of the watch has passed
        silo.Gates.Signal("second-release");

        Assert.Equal(11, await pact.WaitAsync(Bound));
        Assert.Equal(11, await Read(silo, y));
    }

    /// <summary>
    /// A failed PACT's report to its coordinator is answered late: it is asked again, so the PACT
    /// aborts alone (User) and the PACT after it commits, instead of both waiting for the answer
    /// or the whole batch failing when the report times out.
    /// </summary>
    [Fact]
    public async Task A_failed_PACT_whose_report_is_answered_late_aborts_alone_and_holds_nothing_up()
    {
        await using var silo = await StartHolding(nameof(ICoordinator.Fail));
        var x = ActorId.Create<ITestActor>("late-fail");

        var failing = silo.Client.RunPact<ITestActor>(x, (a, ctx) => a.AddThenThrow(ctx, 1, "boom"), AccessSet.Of(x));
        var after = silo.Client.RunPact<ITestActor>(x, (a, ctx) => a.Add(ctx, 10), AccessSet.Of(x));

        var aborted = await Assert.ThrowsAsync<TransactionAbortedException>(() => failing.WaitAsync(Bound));
        Assert.Equal(AbortReason.User, aborted.Reason);
        await after.WaitAsync(Bound);
        var holder = silo.Services.GetRequiredService<HoldOneAnswer>();
        Assert.Equal(1, holder.Held);
        Assert.Equal(10, await Read(silo, x));
        holder.Release();
    }

    private static Task<TestSilo> StartHolding(string method) => TestSilo.StartAsync(
        services: services =>
        {
            services.AddSingleton(new HoldOneAnswer(method, Held));
            services.AddSingleton<IIncomingGrainCallFilter>(sp => sp.GetRequiredService<HoldOneAnswer>());
            services.Configure<SiloMessagingOptions>(o => o.ResponseTimeout = ResponseTimeout);
        });

    private static Task<int> Read(TestSilo silo, ActorId id) => silo.Client.RunAct<ITestActor, int>(id, (actor, ctx) => actor.Read(ctx));

    /// <summary>Holds the answer of the first call of <paramref name="method"/> (after its work is done) for <paramref name="hold"/>, or until released.</summary>
    private sealed class HoldOneAnswer(string method, TimeSpan hold) : IIncomingGrainCallFilter
    {
        private readonly TaskCompletionSource released = new(TaskCreationOptions.RunContinuationsAsynchronously);
        private int held;

        public int Held => Volatile.Read(ref held);

        /// <summary>Lets the held answer go (the silo then stops without waiting for it).</summary>
        public void Release() => released.TrySetResult();

        public async Task Invoke(IIncomingGrainCallContext context)
        {
            await context.Invoke();
            if (context.MethodName == method && Interlocked.CompareExchange(ref held, 1, 0) == 0)
            {
                await Task.WhenAny(released.Task, Task.Delay(hold));
            }
        }
    }
}

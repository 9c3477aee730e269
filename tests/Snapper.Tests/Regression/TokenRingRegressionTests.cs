using Microsoft.Extensions.DependencyInjection;
using Orleans.Configuration;
using Snapper.Coordination;
using Snapper.Tests.Infrastructure;
using Snapper.Protocol;

namespace Snapper.Tests.Regression;

/// <summary>
/// A suspicion of issue 34: a coordinator passes the token again after any failed PassToken, and a
/// pass that was delivered but not answered in time (a slow callee, a lowered response timeout)
/// reached the next coordinator twice, leaving two holders of the token.
/// </summary>
public sealed class TokenRingRegressionTests
{
    private static readonly TimeSpan Bound = TimeSpan.FromSeconds(10);

    [Fact]
    public async Task A_token_pass_delivered_twice_is_taken_once()
    {
        await using var silo = await TestSilo.StartAsync(
            s => s.Configure(o => o.CoordinatorCount = 2),
            services =>
            {
                services.Configure<SiloMessagingOptions>(o => o.ResponseTimeout = TimeSpan.FromSeconds(1));
                services.AddSingleton<HoldOnePass>();
                services.AddSingleton<IIncomingGrainCallFilter>(sp => sp.GetRequiredService<HoldOnePass>());
            });
        var a = ActorId.Create<ITestActor>("token-a");
        await silo.Client.RunPact<ITestActor>(a, (t, ctx) => t.Add(ctx, 1), AccessSet.Of(a)).WaitAsync(Bound);

        // The PACTs of a go to one coordinator (P); hold the next pass to the other (Q) until the
        // sender has timed out, passed again, and the token has gone round and parked.
        var keys = await Coordinators(silo);
        var formed = await Task.WhenAll(keys.Select(async k => (Key: k, (await silo.Grains.GetGrain<ICoordinator>(k).Status()).BatchesFormed)));
        var q = formed.Single(f => f.BatchesFormed == 0).Key;
        await Poll.Until(async () => (await silo.Ring()).Parked, "the ring is idle");
        silo.Services.GetRequiredService<HoldOnePass>().HoldPassTo = q;

        await silo.Client.RunPact<ITestActor>(a, (t, ctx) => t.Add(ctx, 1), AccessSet.Of(a)).WaitAsync(Bound);
        await silo.Gates.Until("pass-retried");
        await Poll.Until(async () => (await silo.Ring()).Parked, "the ring is idle again");

        // The first delivery of the pass arrives late: it is the same pass, not a second token.
        silo.Gates.Signal("pass-release");
        await silo.Gates.Until("pass-delivered-late");
        var holders = await Task.WhenAll(keys.Select(async k => (Key: k, (await silo.Grains.GetGrain<ICoordinator>(k).Status()).HoldsToken)));
        Assert.True(holders.Count(h => h.HoldsToken) == 1, $"token holders: {string.Join(", ", holders.Where(h => h.HoldsToken).Select(h => h.Key))}");

        await silo.Client.RunPact<ITestActor>(a, (t, ctx) => t.Add(ctx, 1), AccessSet.Of(a)).WaitAsync(Bound);
        Assert.Equal(3, await silo.Client.RunAct<ITestActor, int>(a, (t, ctx) => t.Read(ctx)));
    }

    private static async Task<string[]> Coordinators(TestSilo silo) =>
        [.. (await silo.Grains.GetGrain<IRingMembership>(0).View()).Members];

    /// <summary>Holds the first PassToken to coordinator <see cref="HoldPassTo"/> until released, and lets the next one through.</summary>
    private sealed class HoldOnePass(Gates gates) : IIncomingGrainCallFilter
    {
        private int stage;

        public string? HoldPassTo { get; set; }

        public async Task Invoke(IIncomingGrainCallContext context)
        {
            if (context.MethodName != nameof(ICoordinator.PassToken) || HoldPassTo is null || context.TargetId.Key.ToString() != HoldPassTo)
            {
                await context.Invoke();
                return;
            }

            if (Interlocked.CompareExchange(ref stage, 1, 0) == 0)
            {
                await gates.Until("pass-release");
                await context.Invoke();
                gates.Signal("pass-delivered-late");
                return;
            }

            await context.Invoke();
            if (Interlocked.CompareExchange(ref stage, 2, 1) == 1)
            {
                gates.Signal("pass-retried");
            }
        }
    }
}

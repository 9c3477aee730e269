using Snapper.Tests.Infrastructure;

namespace Snapper.Tests.Act;

/// <summary>ActOptions.MaxAttempts: RunAct runs an ACT again after a concurrency abort, keeping its age for wait-die.</summary>
public sealed class RetryTests
{
    /// <summary>
    /// Issue 54: the caller sees only the last attempt's abort; ActOptions.OnRetry hears each one
    /// RunAct runs again, with who was in its way.
    /// </summary>
    [Fact]
    public async Task Each_retried_attempt_s_abort_and_its_blocker_reach_OnRetry()
    {
        await using var silo = await TestSilo.StartAsync();
        var (x, z) = (ActorId.Create<ITestActor>("onretry-x"), ActorId.Create<ITestActor>("onretry-z"));
        silo.Gates.Signal("holder may lock");
        var holder = silo.Client.RunAct<ITestActor>(x, (a, ctx) => a.AddBetweenGates(ctx, "holder may lock", "holder locked", "holder release"));
        await silo.Gates.Until("holder locked");

        var heard = new List<TransactionAbortedException>();
        var options = new ActOptions { MaxAttempts = 3, Promote = false, OnRetry = heard.Add };
        var last = await Assert.ThrowsAsync<TransactionAbortedException>(() =>
            silo.Client.RunAct<ITestActor, bool>(z, async (a, ctx) =>
            {
                await a.AddThenCall(ctx, 1, x, 1);
                return true;
            }, options));

        Assert.Equal(2, heard.Count); // attempts 1 and 2 ran again; the third's abort is the one thrown
        Assert.All(heard.Append(last), aborted =>
        {
            Assert.Equal(AbortReason.WaitDie, aborted.Reason);
            Assert.Equal((x, BlockedOn.Lock), (aborted.Blocker!.Actor, aborted.Blocker.WaitedFor));
        });

        silo.Gates.Signal("holder release");
        await holder;
        silo.AssertQuiescent<Counter>(x);
        silo.AssertQuiescent<Counter>(z);
    }

    [Fact]
    public async Task Contending_transfers_all_commit_when_retried_and_the_money_is_kept()
    {
        await using var silo = await TestSilo.StartAsync();
        var actors = Enumerable.Range(0, 3).Select(i => ActorId.Create<ITestActor>($"retry-{i}")).ToArray();
        var retrying = new ActOptions { MaxAttempts = 200, RetryBackoff = TimeSpan.FromMilliseconds(1) };

        // An older ACT holds the first actor's lock while the transfers start, so every transfer
        // that reaches that actor dies under wait-die (it is younger) and must be retried: contention
        // for certain, not by luck of timing (left to timing, a busy machine sometimes ran the
        // transfers one after another and none was retried).
        silo.Gates.Signal("blocker may lock");
        var blocker = silo.Client.RunAct<ITestActor>(actors[0], (a, ctx) => a.AddBetweenGates(ctx, "blocker may lock", "blocker locked", "blocker release"));
        await silo.Gates.Until("blocker locked");

        const int Transfers = 40;
        var attempts = 0;
        var transfers = Enumerable.Range(0, Transfers).Select(i => silo.Client.RunAct<ITestActor, bool>(actors[i % 3], async (a, ctx) =>
        {
            Interlocked.Increment(ref attempts);
            await a.AddThenCall(ctx, -1, actors[(i + 1) % 3], 1);
            return true;
        }, retrying)).ToList();

        var until = DateTime.UtcNow.AddSeconds(10);
        while (Volatile.Read(ref attempts) <= Transfers)
        {
            Assert.True(DateTime.UtcNow < until, $"no transfer was retried within 10 s ({attempts} attempts)");
            await Task.Delay(5);
        }

        silo.Gates.Signal("blocker release");
        await blocker;
        await Task.WhenAll(transfers);

        // Every transfer committed exactly once: actor k paid 1 in each of its own transfers and
        // received 1 in each of its predecessor's; the blocker added 1 to the first.
        Assert.True(attempts > Transfers);
        var values = await Task.WhenAll(actors.Select(a => silo.Client.RunAct<ITestActor, int>(a, (x, ctx) => x.Read(ctx))));
        for (var k = 0; k < 3; k++)
        {
            var paid = Enumerable.Range(0, Transfers).Count(i => i % 3 == k);
            var received = Enumerable.Range(0, Transfers).Count(i => (i + 1) % 3 == k);
            Assert.Equal((k == 0 ? 1 : 0) - paid + received, values[k]);
        }

        foreach (var actor in actors)
        {
            silo.AssertQuiescent<Counter>(actor);
        }
    }

    [Fact]
    public async Task A_user_abort_is_not_retried()
    {
        await using var silo = await TestSilo.StartAsync();
        var actor = ActorId.Create<ITestActor>("retry-user");
        var calls = 0;

        var aborted = await Assert.ThrowsAsync<TransactionAbortedException>(() => silo.Client.RunAct<ITestActor, bool>(actor, async (a, ctx) =>
        {
            Interlocked.Increment(ref calls);
            await a.AddThenAbort(ctx, 1, AbortReason.User);
            return true;
        }, new ActOptions { MaxAttempts = 5 }));

        Assert.Equal(AbortReason.User, aborted.Reason);
        Assert.Equal(1, calls);
    }

    [Fact]
    public async Task A_PACT_that_throws_is_not_run_again_even_with_retries_on()
    {
        await using var silo = await TestSilo.StartAsync(s => s.Configure(o => o.MaxPactAttempts = 5));
        var actor = ActorId.Create<ITestActor>("retry-pact-user");
        var calls = 0;

        var aborted = await Assert.ThrowsAsync<TransactionAbortedException>(() => silo.Client.RunPact<ITestActor, bool>(actor, async (a, ctx) =>
        {
            Interlocked.Increment(ref calls);
            await a.AddThenAbort(ctx, 1, AbortReason.User);
            return true;
        }, AccessSet.Of(actor)));

        Assert.Equal(AbortReason.User, aborted.Reason);
        Assert.Equal(1, calls);
    }
}

using SmallBank;
using Snapper.Tests.Infrastructure;

namespace Snapper.Tests.Act;

/// <summary>ActOptions.MaxAttempts: RunAct runs an ACT again after a concurrency abort, keeping its age for wait-die.</summary>
public sealed class RetryTests
{
    [Fact]
    public async Task Contending_transfers_all_commit_when_retried_and_the_money_is_kept()
    {
        await using var silo = await TestSilo.StartAsync();
        var accounts = Enumerable.Range(0, 3).Select(i => ActorId.Create<IAccountActor>(500 + i)).ToArray();
        var retrying = new ActOptions { MaxAttempts = 200, RetryBackoff = TimeSpan.FromMilliseconds(1) };
        using var retries = new Snapper.LoadGen.Measurement.RetryListener(); // process-wide: other tests' retries only add to it

        // Rounds of 40 transfers over 3 accounts at once: run once each, many would die under
        // wait-die. On a busy machine a round may happen not to contend (each transfer done before
        // the next arrives), so rounds go on until one did, five at most.
        var rounds = 0;
        do
        {
            rounds++;
            await Task.WhenAll(Enumerable.Range(0, 40).Select(i =>
            {
                var from = accounts[i % 3];
                var to = accounts.Where(a => a != from).ToArray();
                return silo.Client.RunAct<IAccountActor, decimal>(from, (a, ctx) => a.MultiTransfer(ctx, new MultiTransferInput(1m, to)), retrying);
            }));
        }
        while (retries.RetriedActs == 0 && rounds < 5);

        // Every transfer committed exactly once: account k paid 2 in each of its own transfers and
        // received 1 in each of the others'.
        Assert.True(retries.RetriedActs > 0, $"no transfer had to be retried in {rounds} rounds: the test did not contend");
        var balances = await Task.WhenAll(accounts.Select(a => silo.Client.RunAct<IAccountActor, decimal>(a, (x, ctx) => x.Balance(ctx))));
        for (var k = 0; k < 3; k++)
        {
            var own = rounds * Enumerable.Range(0, 40).Count(i => i % 3 == k);
            Assert.Equal((2 * Account.InitialBalance) - (2 * own) + ((40 * rounds) - own), balances[k]);
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

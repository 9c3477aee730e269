using SmallBank;
using Snapper.Tests.Infrastructure;

namespace Snapper.Tests.Act;

/// <summary>Many concurrent ACTs on a few hot actors: serializable outcome, every abort explained.</summary>
public sealed class ContentionTests
{
    [Theory]
    [InlineData(LoggingModeUnderTest.Memory, false)]
    [InlineData(LoggingModeUnderTest.None, false)]
    [InlineData(LoggingModeUnderTest.Memory, true)]
    public async Task Concurrent_multi_transfers_on_hot_accounts_conserve_the_total_and_every_abort_has_a_reason(LoggingModeUnderTest logging, bool promote)
    {
        await using var silo = await TestSilo.StartAsync(s => s.Configure(o =>
        {
            o.Logging = logging == LoggingModeUnderTest.None ? Snapper.Configuration.LoggingMode.None : Snapper.Configuration.LoggingMode.RegisteredStorage;
            o.Promote = promote;
        }));
        var accounts = Enumerable.Range(0, 5).Select(i => ActorId.Create<IAccountActor>(i)).ToArray();
        var random = new Random(7);
        var inputs = Enumerable.Range(0, 400).Select(_ =>
        {
            var picked = accounts.OrderBy(_ => random.Next()).Take(3).ToArray();
            return (From: picked[0], Input: new MultiTransferInput(random.Next(1, 20), picked[1..]));
        }).ToArray();

        var committed = 0;
        var reasons = new System.Collections.Concurrent.ConcurrentBag<AbortReason>();
        await Parallel.ForEachAsync(inputs, new ParallelOptions { MaxDegreeOfParallelism = 32 }, async (t, _) =>
        {
            try
            {
                await silo.Client.RunAct<IAccountActor, decimal>(t.From, (a, ctx) => a.MultiTransfer(ctx, t.Input));
                Interlocked.Increment(ref committed);
            }
            catch (TransactionAbortedException e)
            {
                Assert.True(Enum.IsDefined(e.Reason));
                Assert.NotEqual(0, e.Tid);
                reasons.Add(e.Reason);
            }
        });

        Assert.Equal(inputs.Length, committed + reasons.Count);
        Assert.True(committed > 0, "no transfer committed");
        if (promote)
        {
            // An attempt that lost its race ran again as a PACT, which no race aborts.
            Assert.Empty(reasons);
        }

        Assert.All(reasons, r => Assert.True(r is AbortReason.WaitDie or AbortReason.UpgradeConflict, $"unexpected abort reason {r}"));

        var total = 0m;
        foreach (var account in accounts)
        {
            total += await silo.Client.RunAct<IAccountActor, decimal>(account, (a, ctx) => a.Balance(ctx));
        }

        Assert.Equal(accounts.Length * 2 * Account.InitialBalance, total);
        silo.AssertQuiescent<Account>(accounts);
    }

    public enum LoggingModeUnderTest
    {
        Memory,
        None,
    }
}

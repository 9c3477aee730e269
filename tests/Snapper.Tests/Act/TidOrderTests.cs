using Snapper.Tests.Infrastructure;

namespace Snapper.Tests.Act;

/// <summary>ACT tids follow the order in which RunAct was called, even while the first range of tids is on its way.</summary>
public sealed class TidOrderTests
{
    [Fact]
    public async Task ACTs_started_while_the_first_tid_range_is_fetched_are_older_in_the_order_they_started()
    {
        await using var silo = await TestSilo.StartAsync();
        var actor = ActorId.Create<ITestActor>("tid-order");
        var tids = new long[50];

        // A fresh client has no tids yet: all fifty wait for the same range.
        await Task.WhenAll(Enumerable.Range(0, tids.Length).Select(i => silo.Client.RunAct<ITestActor, int>(actor, (a, ctx) =>
        {
            tids[i] = ctx.Tid;
            return a.Read(ctx);
        })));

        for (var i = 1; i < tids.Length; i++)
        {
            Assert.True(tids[i - 1] < tids[i], $"RunAct {i - 1} got tid {tids[i - 1]} and RunAct {i}, started after it, tid {tids[i]}: wait-die would take the later one for the older");
        }
    }
}

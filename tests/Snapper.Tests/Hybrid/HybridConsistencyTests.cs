using System.Collections.Concurrent;
using ListAppend;
using Snapper.History;
using Snapper.Tests.Infrastructure;

namespace Snapper.Tests.Hybrid;

/// <summary>
/// Hybrid execution (Snapper §4.4) checked Elle-style: PACTs and ACTs append to the same lists at
/// the same time, and the list-append checker proves the result serializable. PACTs never abort
/// (none throws here); ACTs may, for the hybrid reasons, and then must leave no trace.
/// </summary>
public sealed class HybridConsistencyTests
{
    /// <summary>Transactions per run; SNAPPER_SOAK_TRANSACTIONS makes it a soak (default 400 keeps CI short).</summary>
    private static readonly int Transactions =
        int.TryParse(Environment.GetEnvironmentVariable("SNAPPER_SOAK_TRANSACTIONS"), out var n) && n > 0 ? n : 400;

    public static TheoryData<int, int> Mixes()
    {
        var data = new TheoryData<int, int>();
        foreach (var pactPercent in (int[])[100, 90, 50, 10, 0])
        {
            foreach (var actors in (int[])[4, 32, 1000])
            {
                data.Add(pactPercent, actors);
            }
        }

        return data;
    }

    [Theory]
    [MemberData(nameof(Mixes))]
    public async Task Mixed_PACTs_and_ACTs_on_the_same_actors_are_serializable(int pactPercent, int actors)
    {
        await using var silo = await TestSilo.StartAsync(s => s.Configure(o =>
        {
            o.CoordinatorCount = 2;
            o.DeadlockTimeout = Elr.EarlyLockReleaseTests.ConsistencyDeadlockTimeout; // room for batches on a loaded machine
        }));
        var ids = Enumerable.Range(0, actors).Select(i => ActorId.Create<IListActor>(i)).ToArray();
        var random = new Random((pactPercent * 7919) + actors);
        var plans = Enumerable.Range(0, Transactions)
            .Select(_ => (Pact: random.Next(100) < pactPercent, Actors: ids.OrderBy(_ => random.Next()).Take(random.Next(1, Math.Min(6, actors) + 1)).ToArray()))
            .ToArray();
        var history = new ConcurrentBag<HistoryEntry>();
        var pactAborts = new ConcurrentQueue<string>();

        await Parallel.ForEachAsync(plans, new ParallelOptions { MaxDegreeOfParallelism = 32 }, async (plan, _) =>
            history.Add(await Run(silo.Client, plan.Pact, plan.Actors, aborted: e =>
            {
                if (plan.Pact)
                {
                    pactAborts.Enqueue($"PACT {e.Tid} {e.Reason}: {e.Message}");
                }
            })));

        var result = ListAppendChecker.Check([.. history], await ReadAll(silo.Client, ids));
        Assert.True(result.Ok, CheckReport.Render(result));
        Assert.Contains(history, h => h.Status == TransactionStatus.Committed);
        Assert.True(pactAborts.IsEmpty, $"PACTs aborted:{Environment.NewLine}{string.Join(Environment.NewLine, pactAborts.Take(20))}");
        if (pactPercent is > 0 and < 100)
        {
            Assert.Contains(history, h => h.Mode == "act" && h.Status == TransactionStatus.Committed);
            Assert.Contains(history, h => h.Mode == "pact" && h.Status == TransactionStatus.Committed);
        }
    }

    internal static async Task<HistoryEntry> Run(ISnapperClient client, bool pact, ActorId[] plan, ActOptions? actOptions = null, Action<TransactionAbortedException>? aborted = null)
    {
        var mode = pact ? "pact" : "act";
        var names = plan.Select(p => p.Key).ToArray();
        try
        {
            var (tid, seen) = pact
                ? await client.RunPact<IListActor, (long, AppendResult[])>(plan[0], Body(plan), plan.Skip(1).Aggregate(AccessSet.Of(plan[0]), (s, a) => s.And(a)))
                : await client.RunAct<IListActor, (long, AppendResult[])>(plan[0], Body(plan), actOptions ?? ActOptions.Default);
            return new HistoryEntry(tid, mode, TransactionStatus.Committed, null, names,
                [.. seen.Select(r => new AppendObservation(r.Actor.Key, r.PrefixLen, r.PrevTid))]);
        }
        catch (TransactionAbortedException e)
        {
            Assert.NotEqual(0, e.Tid);
            aborted?.Invoke(e);
            return new HistoryEntry(e.Tid, mode, TransactionStatus.Aborted, e.Reason.ToString(), names, []);
        }
    }

    internal static async Task<Dictionary<string, IReadOnlyList<long>>> ReadAll(ISnapperClient client, IEnumerable<ActorId> ids)
    {
        var dump = new Dictionary<string, IReadOnlyList<long>>();
        foreach (var id in ids)
        {
            dump[id.Key] = await client.RunPact<IListActor, List<long>>(id, (a, ctx) => a.Read(ctx), AccessSet.Of(id));
        }

        return dump;
    }

    private static Func<IListActor, TxnContext, Task<(long, AppendResult[])>> Body(ActorId[] plan) =>
        async (actor, ctx) => (ctx.Tid, await actor.AppendEverywhere(ctx, plan[1..]));
}

using System.Collections.Concurrent;
using System.Diagnostics;
using ListAppend;
using Microsoft.Extensions.DependencyInjection;
using Snapper.History;
using Snapper.Logging;
using Snapper.Recovery;
using Snapper.Tests.Hybrid;
using Snapper.Tests.Infrastructure;
using Xunit.Abstractions;
using Snapper.Protocol;

namespace Snapper.Tests.Cluster;

/// <summary>
/// One silo of two dies (Orleans TestingHost's KillSiloAsync: no stop, no drain) under hybrid
/// list-append load with early lock release, the two sharing one log storage. What it had
/// undecided is decided from the logs, the ring re-forms on the survivor, the actors it held come
/// back there with their committed state, no caller waits for ever, and the whole history checks.
/// </summary>
public sealed class SiloFailureTests(ITestOutputHelper output)
{
    // Every transaction must be answered within this: a hang is a failure, not a slow test.
    private static readonly TimeSpan Answer = TimeSpan.FromSeconds(60);

    // A call the client sent through the dead silo's gateway is never answered: Orleans' client ends
    // it at its response timeout (30 s by default) and the test records it as unknown. Shorter here
    // so sixteen workers caught that way do not stall the load for half a minute.
    private static readonly TimeSpan ClientResponseTimeout = TimeSpan.FromSeconds(5);

    [Fact]
    public async Task A_silo_that_dies_under_hybrid_load_with_early_lock_release_is_failed_over_from_the_logs()
    {
        var storage = new InMemoryLogStorage();
        await using var cluster = await TestSilo.StartAsync( // disposed before the restart below, or here if the test fails
            s => s.Configure(o =>
            {
                o.CoordinatorCount = 2;
                o.EarlyLockRelease = true;
                o.CheckpointInterval = TimeSpan.Zero;
                o.DeadlockTimeout = Elr.EarlyLockReleaseTests.ConsistencyDeadlockTimeout;
            }),
            services => services.AddSingleton<ILogStorage>(storage),
            silos: 2,
            client: c => c.Configure<Orleans.Configuration.ClientMessagingOptions>(o => o.ResponseTimeout = ClientResponseTimeout));
        var ids = Enumerable.Range(0, 24).Select(i => ActorId.Create<IListActor>(i)).ToArray();
        await HybridConsistencyTests.ReadAll(cluster.Client, ids); // activate them all, spread over both silos
        var victim = cluster.Cluster.Silos[1];
        var onVictim = ids.Where(id => cluster.SiloOf(id) == victim.Name).ToArray();
        Assert.True(onVictim.Length > 0 && onVictim.Length < ids.Length, "random placement put every list on one silo");

        var history = new ConcurrentBag<HistoryEntry>();
        var answeredAt = new ConcurrentDictionary<long, (long Started, long Ended)>();
        long slowest = 0;
        var committedAt = new ConcurrentBag<(long Started, long Ended, string Mode)>();
        var clock = Stopwatch.StartNew();
        using var stop = new CancellationTokenSource();
        var workers = Enumerable.Range(0, 16).Select(w => Task.Run(async () =>
        {
            var random = new Random(w);
            while (!stop.IsCancellationRequested)
            {
                var plan = ids.OrderBy(_ => random.Next()).Take(random.Next(1, 5)).ToArray();
                var pact = random.Next(100) < 50;
                var started = clock.ElapsedMilliseconds;
                var entry = await Run(cluster.Client, pact, plan).WaitAsync(Answer);
                InterlockedMax(ref slowest, clock.ElapsedMilliseconds - started);
                if (entry is not null)
                {
                    answeredAt[entry.Tid] = (started, clock.ElapsedMilliseconds);
                    history.Add(entry);
                    if (entry.Status == TransactionStatus.Committed)
                    {
                        committedAt.Add((started, clock.ElapsedMilliseconds, entry.Mode));
                    }
                }
            }
        })).ToArray();

        long firstCommit, settledAt, killedAt;
        try
        {
            await Poll.Until(() => history.Count(h => h.Status == TransactionStatus.Committed) >= 200, "the load commits");
            var committedBefore = history.Count(h => h.Status == TransactionStatus.Committed);
            killedAt = clock.ElapsedMilliseconds;
            await cluster.Cluster.KillSiloAsync(victim);

            // The ring re-forms on the survivor, and both kinds of transaction commit again, some of them
            // on the lists the dead silo held.
            await Poll.Until(
                () => committedAt.Any(c => c.Started > killedAt && c.Mode == "pact") && committedAt.Any(c => c.Started > killedAt && c.Mode == "act"),
                "PACTs and ACTs started after the kill commit");
            firstCommit = committedAt.Where(c => c.Started > killedAt).Min(c => c.Ended) - killedAt;
            settledAt = clock.ElapsedMilliseconds;
            await Poll.Until(() => history.Count(h => h.Status == TransactionStatus.Committed) >= committedBefore + 200, "the load goes on after the kill");
        }
        finally
        {
            // Also when a poll fails: the workers would go on for as long as the test process runs,
            // loading the cluster (left running then) and starving every test after this one.
            await stop.CancelAsync();
        }

        var stoppedAt = clock.ElapsedMilliseconds;
        await Task.WhenAll(workers); // each answered within its bound, or this throws
        output.WriteLine($"load stopped {stoppedAt - killedAt} ms after the kill; the last answer came {clock.ElapsedMilliseconds - stoppedAt} ms later; slowest answer {slowest} ms");

        var view = await cluster.Grains.GetGrain<IRingMembership>(0).View();
        Assert.DoesNotContain(view.Members, k => CoordinatorKey.SiloOf(k) == victim.Name);
        var dump = await HybridConsistencyTests.ReadAll(cluster.Client, ids);
        var result = ListAppendChecker.Check([.. history], dump);
        var after = history.Where(h => h.Tid > 0).ToList();
        output.WriteLine(
            $"killed {victim.Name} at {killedAt} ms holding {onVictim.Length} of {ids.Length} lists; first commit after the kill {firstCommit} ms later; " +
            $"both modes committing again {settledAt - killedAt} ms after it");
        output.WriteLine(
            $"history: {after.Count(h => h.Status == TransactionStatus.Committed)} committed, " +
            $"{after.Count(h => h.Status == TransactionStatus.Aborted)} aborted ({string.Join(", ", after.Where(h => h.Status == TransactionStatus.Aborted).GroupBy(h => h.AbortReason).Select(g => $"{g.Key} {g.Count()}"))}), " +
            $"{after.Count(h => h.Status == TransactionStatus.Unknown)} unknown; checker: {(result.Ok ? "OK" : "FAILED")}");
        if (!result.Ok)
        {
            await Explain(result, [.. history], storage, answeredAt, killedAt, onVictim);
        }

        Assert.True(result.Ok, CheckReport.Render(result));
        Assert.All(onVictim, id => Assert.Equal(cluster.Cluster.Silos[0].Name, cluster.SiloOf(id)));
        Assert.Contains(dump, d => onVictim.Any(v => v.Key == d.Key) && d.Value.Count > 0);

        // What the failover decided is what recovery decides: a restart from the same logs shows
        // the very same lists.
        await cluster.DisposeAsync();
        await using var restarted = await TestSilo.StartAsync(services: services => services.AddSingleton<ILogStorage>(storage));
        var recovered = await HybridConsistencyTests.ReadAll(restarted.Client, ids);
        Assert.All(ids, id => Assert.Equal(dump[id.Key], recovered[id.Key]));
    }

    // On a failed check: what the history and the logs say of each transaction a violation names.
    private async Task Explain(CheckResult result, IReadOnlyList<HistoryEntry> history, InMemoryLogStorage storage, ConcurrentDictionary<long, (long Started, long Ended)> answeredAt, long killedAt, ActorId[] onVictim)
    {
        output.WriteLine($"killed at {killedAt} ms; on the victim: [{string.Join(", ", onVictim.Select(v => v.Key))}]");
        var named = result.Violations.SelectMany(v => v.Tids).ToHashSet();
        var tids = history.Where(h => named.Contains(h.Tid)).SelectMany(h => h.Appends.Where(a => a.PrevTid is not null).Select(a => a.PrevTid!.Value)).Concat(named).ToHashSet();
        foreach (var entry in history.Where(h => tids.Contains(h.Tid)))
        {
            var at = answeredAt.TryGetValue(entry.Tid, out var t) ? $"{t.Started}..{t.Ended} ms" : "?";
            output.WriteLine($"history: {entry.Tid} ({at}) {entry.Mode} {entry.Status} {entry.AbortReason} on [{string.Join(", ", entry.Actors)}] saw [{string.Join(", ", entry.Appends.Select(a => $"{a.Actor}:{a.PrefixLen}/{a.PrevTid}"))}]");
        }

        var logs = await LogRecovery.ReadAllAsync(storage, CancellationToken.None);
        bool Near(LogRecord r) => r is BatchInfoRecord or BatchCommitRecord && named.Any(n => Math.Abs(n - r.Tid) <= 16);
        foreach (var (log, records) in logs)
        {
            foreach (var record in records.Where(r => tids.Contains(r.Tid) || Near(r) || r is CoordCommitRecord c && c.DependsOn.Any(tids.Contains)))
            {
                output.WriteLine($"log {log}: {record}");
            }
        }

        var now = LogEvaluation.Of([.. logs.SelectMany(l => l.Records)]);
        output.WriteLine($"the logs now: committed batches near [{string.Join(", ", now.CommittedBatches.Where(b => named.Any(n => Math.Abs(n - b) <= 16)).Order())}], committed ACTs among them [{string.Join(", ", tids.Where(now.CommittedActs.Contains))}]");
    }

    private static void InterlockedMax(ref long target, long value)
    {
        long seen;
        while ((seen = Volatile.Read(ref target)) < value && Interlocked.CompareExchange(ref target, value, seen) != seen)
        {
        }
    }

    // One transaction appending its tid to each list of the plan. Its tid is known once its body
    // has run (on the client, as the first call starts); a caller that loses contact records it
    // as unknown: the checker then wants it in all of its lists or in none.
    internal static async Task<HistoryEntry?> Run(ISnapperClient client, bool pact, ActorId[] plan)
    {
        var mode = pact ? "pact" : "act";
        var names = plan.Select(p => p.Key).ToArray();
        long tid = 0;
        async Task<(long, AppendResult[])> Body(IListActor actor, TxnContext ctx)
        {
            Volatile.Write(ref tid, ctx.Tid);
            return (ctx.Tid, await actor.AppendEverywhere(ctx, plan[1..]));
        }

        try
        {
            var (committed, seen) = pact
                ? await client.RunPact<IListActor, (long, AppendResult[])>(plan[0], Body, plan.Skip(1).Aggregate(AccessSet.Of(plan[0]), (s, a) => s.And(a)))
                : await client.RunAct<IListActor, (long, AppendResult[])>(plan[0], Body, ActOptions.EarlyRelease);
            return new HistoryEntry(committed, mode, TransactionStatus.Committed, null, names,
                [.. seen.Select(r => new AppendObservation(r.Actor.Key, r.PrefixLen, r.PrevTid))]);
        }
        catch (TransactionAbortedException e)
        {
            var known = e.Tid != 0 ? e.Tid : Volatile.Read(ref tid);
            return known == 0 ? null : new HistoryEntry(known, mode, TransactionStatus.Aborted, e.Reason.ToString(), names, []);
        }
        catch (Exception)
        {
            var known = Volatile.Read(ref tid);
            return known == 0 ? null : new HistoryEntry(known, mode, TransactionStatus.Unknown, null, names, []);
        }
    }
}

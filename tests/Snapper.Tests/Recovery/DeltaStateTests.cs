using System.Collections.Concurrent;
using ListAppend;
using Microsoft.Extensions.DependencyInjection;
using Orleans.Serialization;
using Snapper.Checkpointing;
using Snapper.History;
using Snapper.Hosting;
using Snapper.Logging;
using Snapper.Recovery;
using Snapper.Serialization;
using Snapper.Tests.Hybrid;
using Snapper.Tests.Infrastructure;
using Snapper.Configuration;

namespace Snapper.Tests.Recovery;

/// <summary>
/// A state that implements <see cref="IDeltaState{TSelf, TDelta}"/> (the list-append
/// <see cref="TidList"/>) is logged mostly as deltas, and comes back exactly, through checkpoints
/// and a restart, with PACTs and ACTs (with and without early lock release) writing it.
/// </summary>
public sealed class DeltaStateTests : IDisposable
{
    private readonly string directory = Path.Combine(Path.GetTempPath(), $"snapper-delta-{Guid.NewGuid():N}");

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task Lists_logged_as_deltas_come_back_whole_after_checkpoints_and_a_restart(bool earlyLockRelease)
    {
        void FileLogging(SnapperBuilder s) => s.Configure(o =>
        {
            o.Logging = LoggingMode.File;
            o.LogDirectory = directory;
            o.CoordinatorCount = 2;
            o.EarlyLockRelease = earlyLockRelease;
            o.DeadlockTimeout = Elr.EarlyLockReleaseTests.ConsistencyDeadlockTimeout;
            o.CheckpointInterval = TimeSpan.Zero; // rounds run when the test says
        });

        var ids = Enumerable.Range(0, 6).Select(i => ActorId.Create<IListActor>(i)).ToArray();
        var history = new ConcurrentBag<HistoryEntry>();
        Dictionary<string, IReadOnlyList<long>> before;
        List<LogRecord> lastPhase;
        await using (var first = await TestSilo.StartAsync(FileLogging))
        {
            var storage = first.Services.GetRequiredService<ILogStorage>();
            for (var phase = 0; phase < 3; phase++)
            {
                var random = new Random(phase);
                var plans = Enumerable.Range(0, 120)
                    .Select(i => (Pact: i % 2 == 0, Actors: ids.OrderBy(_ => random.Next()).Take(random.Next(1, 4)).ToArray()))
                    .ToArray();
                await Parallel.ForEachAsync(plans, new ParallelOptions { MaxDegreeOfParallelism = 8 }, async (plan, _) =>
                    history.Add(await HybridConsistencyTests.Run(first.Client, plan.Pact, plan.Actors)));
                if (phase < 2)
                {
                    await first.Grains.GetGrain<ICheckpointer>(0).Run();
                }
            }

            before = await HybridConsistencyTests.ReadAll(first.Client, ids);
            lastPhase = [.. (await LogRecovery.ReadAllAsync(storage, CancellationToken.None)).SelectMany(l => l.Records)];
        }

        var forms = lastPhase.Select(r => StateForm(r)).Where(f => f is not null).GroupBy(f => f!.Value).ToDictionary(g => g.Key, g => g.Count());
        Assert.True(
            forms.GetValueOrDefault(true) > forms.GetValueOrDefault(false),
            $"{forms.GetValueOrDefault(true)} delta(s) against {forms.GetValueOrDefault(false)} whole state(s) in the log");

        await using var second = await TestSilo.StartAsync(FileLogging);
        var after = await HybridConsistencyTests.ReadAll(second.Client, ids);
        Assert.Equal(before, after);
        var result = ListAppendChecker.Check([.. history], after);
        Assert.True(result.Ok, CheckReport.Render(result));
        Assert.Contains(history, h => h.Mode == "act" && h.Status == TransactionStatus.Committed);
    }

    [Fact]
    public void A_TidList_copy_shares_its_full_chunks_and_its_deltas_rebuild_it_through_either_serializer()
    {
        using var services = new ServiceCollection().AddSerializer().BuildServiceProvider();
        var orleans = new OrleansStateSerializer(services.GetRequiredService<Serializer>(), services.GetRequiredService<DeepCopier>());
        var before = new TidList();
        before.Apply([.. Enumerable.Range(1, (2 * TidList.ChunkSize) + 5).Select(i => (long)i)]);

        var copy = orleans.Copy(before);
        Assert.Same(before.Chunks[1], copy.Chunks[1]);
        Assert.NotSame(before.Tail, copy.Tail);
        for (var tid = 10_000L; tid < 10_000 + TidList.ChunkSize; tid++)
        {
            copy.Add(tid); // fills the tail into a third chunk and starts a new tail
        }

        Assert.Equal((2 * TidList.ChunkSize) + 5, before.Count);
        foreach (var serializer in new IStateSerializer[] { orleans, new JsonStateSerializer() })
        {
            var rebuilt = serializer.Deserialize<TidList>(serializer.Serialize(before));
            rebuilt.Apply(serializer.Deserialize<long[]>(serializer.Serialize(copy.DeltaFrom(before))));
            Assert.Equal(copy.ToList(), rebuilt.ToList());
            Assert.Equal(copy.Last, rebuilt.Last);
        }
    }

    public void Dispose()
    {
        if (Directory.Exists(directory))
        {
            Directory.Delete(directory, recursive: true);
        }
    }

    /// <summary>
    /// True for a state logged as a delta, false for a whole one, null for a record without a state
    /// (or of an actor whose interface is not <paramref name="actorType"/>, if given).
    /// </summary>
    internal static bool? StateForm(LogRecord record, string? actorType = null) => record switch
    {
        PrepareRecord p when actorType is null || p.Actor.Type == actorType => p.Delta,
        CommitRecord { State.IsEmpty: false } c when actorType is null || c.Actor.Type == actorType => c.Delta,
        BatchCompleteRecord { State.IsEmpty: false } b when actorType is null || b.Actor.Type == actorType => b.Delta,
        _ => null,
    };
}

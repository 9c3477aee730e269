using System.Collections.Concurrent;
using ListAppend;
using Microsoft.Extensions.DependencyInjection;
using Snapper.Checkpointing;
using Snapper.History;
using Snapper.Hosting;
using Snapper.Logging;
using Snapper.Recovery;
using Snapper.Tests.Infrastructure;

namespace Snapper.Tests.Regression;

/// <summary>
/// A checkpoint round under hybrid load was given up with "records are missing": its scan reads
/// live logs one after another, so a batch's BatchCommit appended to a log already read hid that
/// batch's state, while the state an ACT then built on it, in a log read later, counted.
/// </summary>
public sealed class CheckpointScanRegressionTests
{
    private const long Round = 42;
    private const string Decisions = "snapper-own-0"; // read first
    private const string States = "snapper-own-1";
    private static readonly HashSet<string> Own = [Decisions, States];
    private static readonly ActorId A = ActorId.Create<ITestActor>("a");
    private static readonly ActorId Root = ActorId.Create<ITestActor>("root");

    private static byte[] B(byte b) => [b];

    [Fact]
    public async Task A_state_built_on_one_whose_decision_came_after_its_log_was_read_does_not_fail_the_round()
    {
        var storage = new ReadRacingLogStorage(Decisions, States);
        await storage.Append(Decisions, new CheckpointSealRecord(Round));
        await storage.Append(
            States,
            new CommitRecord(1, A, B(1)) { Version = 1 },
            new CheckpointSealRecord(Round),
            new BatchCompleteRecord(20, A, "c/0", B(2)) { Version = 2, Delta = true });
        storage.AfterFirstRead(Decisions, async () =>
        {
            // While the scan reads the other log, batch 20 commits and an ACT builds version 3 on its state.
            await storage.Append(Decisions, new BatchCommitRecord(20));
            await storage.Append(States, new PrepareRecord(30, A, Root, B(3)) { Version = 3, Delta = true }, new CoordCommitRecord(30));
        });

        var content = await CheckpointContent.ReadAsync(Round, storage, Own, CancellationToken.None);

        // It restates what the sealed part said, no more than its scan can vouch for.
        Assert.Equal([(1L, false)], content.States.Select(s => (s.Version, s.Delta)));

        // Recovery after the truncation reads what it reads from every record.
        var logs = await LogRecovery.ReadAllAsync(storage, CancellationToken.None);
        var everything = LogEvaluation.Of([.. logs.SelectMany(l => l.Records)]).States[A];
        var left = LogEvaluation.Of(
        [
            .. logs.SelectMany(l => l.Records.SkipWhile(r => r is not CheckpointSealRecord)),
            .. content.States,
            .. content.Decisions,
            content.MaxTid,
        ]).States[A];
        Assert.Equal((3L, 1L), (everything.Version, everything.WholeVersion));
        Assert.Equal((everything.Version, everything.WholeVersion), (left.Version, left.WholeVersion));
        Assert.Equal(everything.State.ToArray(), left.State.ToArray());
        Assert.Equal(everything.Deltas.Select(d => d.ToArray()), left.Deltas.Select(d => d.ToArray()));
    }

    [Fact]
    public async Task Rounds_under_hybrid_load_on_the_same_lists_get_through_and_a_restart_has_every_committed_append()
    {
        // Two loggers: a batch's BatchCommit and the states built on it are often in different logs.
        var storage = new InMemoryLogStorage();
        void Options(SnapperBuilder s) => s.Configure(o =>
        {
            o.LoggerCount = 2;
            o.CoordinatorCount = 2;
            o.CheckpointInterval = TimeSpan.Zero; // rounds run when the test says
            o.DeadlockTimeout = Elr.EarlyLockReleaseTests.ConsistencyDeadlockTimeout;
        });

        var ids = Enumerable.Range(0, 4).Select(i => ActorId.Create<IListActor>(i)).ToArray();
        var random = new Random(7);
        var plans = Enumerable.Range(0, 3000)
            .Select(_ => (Pact: random.Next(100) < 90, Actors: ids.OrderBy(_ => random.Next()).Take(random.Next(1, 3)).ToArray()))
            .ToArray();
        var history = new ConcurrentBag<HistoryEntry>();
        var failures = new List<string>();
        var rounds = 0;
        Dictionary<string, IReadOnlyList<long>> before;
        await using (var silo = await TestSilo.StartAsync(Options, services => services.AddSingleton<ILogStorage>(storage)))
        {
            var load = Parallel.ForEachAsync(plans, new ParallelOptions { MaxDegreeOfParallelism = 32 }, async (plan, _) =>
                history.Add(await Hybrid.HybridConsistencyTests.Run(silo.Client, plan.Pact, plan.Actors)));
            var checkpointer = silo.Grains.GetGrain<ICheckpointer>(0);
            while (!load.IsCompleted)
            {
                try
                {
                    await checkpointer.Run();
                    rounds++;
                }
                catch (InvalidDataException e)
                {
                    failures.Add(e.Message);
                }
            }

            await load;
            before = await Hybrid.HybridConsistencyTests.ReadAll(silo.Client, ids);
        }

        Assert.True(failures.Count == 0, $"{failures.Count} of {failures.Count + rounds} round(s) failed: {string.Join(Environment.NewLine, failures.Take(5))}");
        Assert.True(rounds > 2, $"only {rounds} round(s) ran under the load");
        await using var restarted = await TestSilo.StartAsync(Options, services => services.AddSingleton<ILogStorage>(storage));
        var after = await Hybrid.HybridConsistencyTests.ReadAll(restarted.Client, ids);
        Assert.Equal(before, after);
        var result = ListAppendChecker.Check([.. history], after);
        Assert.True(result.Ok, CheckReport.Render(result));
    }

    [Fact]
    public void A_committed_state_in_the_sealed_part_above_a_missing_version_rests_on_the_row_or_fails_the_round()
    {
        // Its predecessors were decided before the round read anything: a gap below it is no race
        // but versions at rest, and the round writes it only built on a row that reaches the gap
        // (SiloCheckpoint.ToStore), or fails (without a store, or with an older row).
        List<LogRecord> records =
        [
            new CommitRecord(1, A, B(1)) { Version = 1 },
            new CommitRecord(3, A, B(3)) { Version = 3, Delta = true },
            new CheckpointSealRecord(Round),
        ];

        var sealedState = CheckpointContent.Of(Round, [(States, records)], Own).AtRest[A];

        Assert.True(sealedState.OnBaseAtRest);
        Assert.Equal((3L, 2L), (sealedState.Version, sealedState.WholeVersion));
        var failure = Assert.Throws<InvalidDataException>(() => sealedState.Over(new Snapper.Recovery.CommittedState(1, B(1))));
        Assert.Contains("version 2", failure.Message);
    }
}

using Snapper.Logging;
using Snapper.Recovery;

namespace Snapper.Tests.Recovery;

/// <summary>
/// Recovery of a state logged as deltas (<see cref="IDeltaState{TSelf, TDelta}"/>): the last whole
/// committed state and the committed deltas after it, version by version; deltas past a gap rest on
/// a state at rest, and missing records are named when nothing completes them.
/// </summary>
public sealed class DeltaChainTests
{
    private static readonly ActorId A = ActorId.Create<Infrastructure.ITestActor>("a");
    private static readonly ActorId Root = ActorId.Create<Infrastructure.ITestActor>("root");

    private static byte[] B(byte b) => [b];

    [Fact]
    public void The_last_whole_state_comes_with_the_committed_deltas_after_it()
    {
        var records = new LogRecord[]
        {
            new CommitRecord(1, A, B(1)) { Version = 1 },
            new CommitRecord(2, A, B(2)) { Version = 2, Delta = true },
            new CommitRecord(3, A, B(3)) { Version = 3 },
            new PrepareRecord(4, A, Root, B(4)) { Version = 4, Delta = true },
            new CoordCommitRecord(4),
            new BatchCompleteRecord(5, A, "c/0", B(5)) { Version = 5, Delta = true },
            new BatchCommitRecord(5),
            new PrepareRecord(6, A, Root, B(6)) { Version = 6, Delta = true }, // never committed
        };

        var state = LogEvaluation.Of(records).States[A];

        Assert.Equal((5L, 3L), (state.Version, state.WholeVersion));
        Assert.Equal([3], state.State.ToArray());
        Assert.Equal([[4], [5]], state.Deltas.Select(d => d.ToArray()));
    }

    [Fact]
    public void A_whole_state_logged_again_with_the_same_version_replaces_the_delta()
    {
        // A PACT's abort logs the batch's state again, whole, with the version it had.
        var records = new LogRecord[]
        {
            new CommitRecord(1, A, B(1)) { Version = 1 },
            new BatchCompleteRecord(5, A, "c/0", B(2)) { Version = 2, Delta = true },
            new BatchCompleteRecord(5, A, "c/0", B(9)) { Version = 2 },
            new BatchCommitRecord(5),
        };

        var state = LogEvaluation.Of(records).States[A];

        Assert.Equal((2L, 2L), (state.Version, state.WholeVersion));
        Assert.Equal([9], state.State.ToArray());
        Assert.Empty(state.Deltas);
    }

    [Fact]
    public void A_gap_in_the_deltas_rests_what_follows_it_on_a_state_at_rest()
    {
        // What a failover reads once a checkpoint moved versions 2 and 3 to the store: an old whole
        // state in a log nobody truncates (a departed silo's), the newest delta in another.
        var records = new LogRecord[]
        {
            new CommitRecord(1, A, B(1)) { Version = 1 },
            new CommitRecord(4, A, B(4)) { Version = 4, Delta = true },
        };

        var state = LogEvaluation.Of(records).States[A];

        Assert.True(state.OnBaseAtRest);
        Assert.Equal((4L, 3L), (state.Version, state.WholeVersion));
        Assert.Equal([[4]], state.Deltas.Select(d => d.ToArray()));
        var failure = Assert.Throws<InvalidDataException>(() => state.Over(new CommittedState(1, B(1))));
        Assert.Contains("records are missing", failure.Message);
        Assert.Equal((4L, 3L), (state.Over(new CommittedState(3, B(3))).Version, state.Over(new CommittedState(3, B(3))).WholeVersion));
    }

    [Fact]
    public void Deltas_with_no_whole_state_before_them_rest_on_a_state_at_rest_which_completes_them()
    {
        // A checkpoint moved the whole state (version 1) to the store and truncated it.
        var records = new LogRecord[]
        {
            new CommitRecord(2, A, B(2)) { Version = 2, Delta = true },
            new CommitRecord(3, A, B(3)) { Version = 3, Delta = true },
        };

        var tail = LogEvaluation.Of(records).States[A];
        Assert.True(tail.OnBaseAtRest);
        Assert.Equal((3L, 1L), (tail.Version, tail.WholeVersion));

        // The row, at version 1 or 2 (whole, or itself whole and deltas), completes it.
        var row = new CommittedState(2, B(1), [B(2)]) { Sequence = 7 };
        var whole = tail.Over(row);
        Assert.Equal((3L, 1L, false), (whole.Version, whole.WholeVersion, whole.OnBaseAtRest));
        Assert.Equal([[2], [3]], whole.Deltas.Select(d => d.ToArray()));
        Assert.Equal(whole.Deltas.Select(d => d.ToArray()), CommittedState.Merge(row, tail).Deltas.Select(d => d.ToArray()));
        Assert.Equal(7, CommittedState.Merge(tail, row).Sequence);

        // An older row, or none, leaves it incomplete: records are missing, said when it is used.
        Assert.True(CommittedState.Merge(tail, new CommittedState(0, B(0))).OnBaseAtRest);
        var failure = Assert.Throws<InvalidDataException>(() => tail.Over(new CommittedState(0, B(0))));
        Assert.Contains("records are missing", failure.Message);
    }

    [Fact]
    public void A_checkpoint_restates_in_the_store_the_highest_sealed_version_not_one_read_after_the_seal()
    {
        var records = new List<LogRecord>
        {
            new CommitRecord(1, A, B(1)) { Version = 1 },
            new CommitRecord(2, A, B(2)) { Version = 2, Delta = true },
            new CheckpointSealRecord(100),
            new CommitRecord(3, A, B(3)) { Version = 3 }, // after the seal: read while it was appended
        };

        var content = Snapper.Checkpointing.CheckpointContent.Of(100, [("log", records)], new HashSet<string> { "log" });

        var atRest = content.AtRest[A];
        Assert.Equal((2L, 1L), (atRest.Version, atRest.WholeVersion));
        Assert.Equal([1], atRest.State.ToArray());
        Assert.Equal([[2]], atRest.Deltas.Select(d => d.ToArray()));
    }

    [Fact]
    public void Deltas_from_the_first_version_rest_on_the_initial_state_and_a_checkpoint_keeps_them_so()
    {
        // The whole state written first was an aborted transaction's; the next write was a delta.
        var records = new List<LogRecord>
        {
            new PrepareRecord(1, A, Root, B(1)) { Version = 1 },
            new PrepareRecord(2, A, Root, B(2)) { Version = 1, Delta = true },
            new CoordCommitRecord(2),
            new CommitRecord(3, A, B(3)) { Version = 2, Delta = true },
            new CheckpointSealRecord(100),
        };

        var state = LogEvaluation.Of(records).States[A];
        Assert.Equal((2L, 0L, true), (state.Version, state.WholeVersion, state.State.IsEmpty));
        Assert.Equal([[2], [3]], state.Deltas.Select(d => d.ToArray()));

        var content = Snapper.Checkpointing.CheckpointContent.Of(100, [("log", records)], new HashSet<string> { "log" });
        Assert.Equal([(1L, true), (2L, true)], content.States.Select(r => (r.Version, r.Delta)));
        Assert.Equal(state.Deltas.Select(d => d.ToArray()), LogEvaluation.Of([.. content.States]).States[A].Deltas.Select(d => d.ToArray()));
    }

    [Fact]
    public void A_checkpoint_writes_the_whole_state_and_each_delta_after_it_and_they_evaluate_alike()
    {
        var records = new List<LogRecord>
        {
            new CommitRecord(1, A, B(1)) { Version = 1 },
            new CommitRecord(2, A, B(2)) { Version = 2, Delta = true },
            new CommitRecord(3, A, B(3)) { Version = 3, Delta = true },
            new CheckpointSealRecord(100),
        };

        var content = Snapper.Checkpointing.CheckpointContent.Of(100, [("log", records)], new HashSet<string> { "log" });

        Assert.Equal([(1L, false), (2L, true), (3L, true)], content.States.Select(r => (r.Version, r.Delta)));
        var again = LogEvaluation.Of([.. content.States]).States[A];
        Assert.Equal((3L, 1L), (again.Version, again.WholeVersion));
        Assert.Equal([[2], [3]], again.Deltas.Select(d => d.ToArray()));
    }
}

using Snapper.Checkpointing;
using Snapper.Logging;
using Snapper.Recovery;
using Snapper.Tests.Infrastructure;

namespace Snapper.Tests.Outbox;

/// <summary>What the logs say is owed: the actions of committed transactions, less those noted delivered, also across a checkpoint.</summary>
public sealed class OwedActionsTests
{
    private static readonly ActorId A = ActorId.Create<ITestActor>("a");

    private static AfterCommitAction Action(long tid, int seq = 0) => new(tid, A, seq, [(byte)tid]);

    private static AfterCommitRecord Actions(long tid, bool batch, params AfterCommitAction[] actions) => new(tid, batch, [.. actions]);

    private static IEnumerable<AfterCommitId> Owed(LogEvaluation evaluation) => evaluation.Owed.Select(o => o.Action.Id).OrderBy(id => id.Tid).ThenBy(id => id.Seq);

    [Fact]
    public void Only_the_actions_of_transactions_whose_decision_counts_are_owed_and_only_until_noted_delivered()
    {
        List<LogRecord> log =
        [
            Actions(5, batch: false, Action(5)), new CoordCommitRecord(5),              // committed, then delivered (below)
            Actions(6, batch: false, Action(6)),                                        // its CoordCommit never came: aborted
            Actions(7, batch: false, Action(7, 0), Action(7, 1)), new CoordCommitRecord(7), // committed, one of two delivered
            Actions(10, batch: false, Action(10)), new CoordCommitRecord(10) { DependsOn = [6] }, // early lock release on an aborted ACT
            Actions(20, batch: true, Action(21)), new BatchCommitRecord(20),            // a batch's PACT 21: committed
            Actions(30, batch: true, Action(31)), new BatchCommitRecord(30) { DependsOn = 25 }, // batch 25's record was lost
            new DeliveredRecord(7, [Action(5).Id, Action(7, 0).Id]),
        ];

        var evaluation = LogEvaluation.Of(log);

        Assert.Equal([Action(7, 1).Id, Action(21).Id], Owed(evaluation));
    }

    [Fact]
    public void A_checkpoint_restates_what_is_still_owed_and_the_delivery_notes_of_actions_it_keeps_across_two_rounds()
    {
        const long round = 50;
        List<LogRecord> own =
        [
            Actions(5, batch: false, Action(5, 0), Action(5, 1)), new CoordCommitRecord(5),
            Actions(20, batch: true, Action(21)), new BatchCommitRecord(20),
            new DeliveredRecord(40, [Action(5, 0).Id, Action(40).Id]), // 40's actions stay: after the seal
            new CheckpointSealRecord(round),
            Actions(40, batch: false, Action(40)), new CoordCommitRecord(40),
        ];
        Assert.Equal([Action(5, 1).Id, Action(21).Id], Owed(LogEvaluation.Of(own)));

        var content = CheckpointContent.Of(round, [("snapper-own-0", own)], new HashSet<string> { "snapper-own-0" });
        List<LogRecord> truncated = [.. own.Skip(7), .. content.States, .. content.Decisions, .. content.Actions, content.MaxTid];

        Assert.Equal([Action(5, 1).Id, Action(21).Id], Owed(LogEvaluation.Of(truncated)));

        // A second round truncates everything, the first round's restatements included.
        truncated.Add(new CheckpointSealRecord(round + 1));
        var second = CheckpointContent.Of(round + 1, [("snapper-own-0", truncated)], new HashSet<string> { "snapper-own-0" });
        List<LogRecord> left = [.. second.States, .. second.Decisions, .. second.Actions, second.MaxTid];

        Assert.Equal([Action(5, 1).Id, Action(21).Id], Owed(LogEvaluation.Of(left)));
    }
}

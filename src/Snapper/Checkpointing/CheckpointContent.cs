using System.Collections.Immutable;
using Snapper.Logging;
using Snapper.Recovery;

namespace Snapper.Checkpointing;

/// <summary>
/// What one silo's checkpoint writes in place of the records it truncates (docs/architecture.md,
/// "Checkpoints"): computed from every log in the storage, read after the round has settled.
/// </summary>
/// <remarks>
/// The records a silo truncates are those of its own logs before the round's
/// <see cref="CheckpointSealRecord"/> (its "sealed part"). Recovery must read the same from what is
/// left, so the checkpoint writes:
/// <list type="bullet">
/// <item>for every actor with a committed state in a sealed part (a Prepare, BatchComplete or
/// Commit record), its committed state at the highest version there (<see cref="Builder.Finish"/>
/// says why not a later one): for the store of states at rest if the silo has one
/// (<see cref="AtRest"/>), else as Commit records (<see cref="States"/>; for an
/// <see cref="IDeltaState{TSelf, TDelta}"/> state, the last whole state and a Commit record per delta
/// after it: the checkpoint cannot apply them, it does not know the type);</item>
/// <item>the committed ACTs and batches whose CoordCommit or BatchCommit is in a sealed part, and
/// the highest committed batch, as <see cref="CommittedDecisionsRecord"/>s: records left in other
/// logs, or after the seal, may still count by them;</item>
/// <item>the highest tid in any log, as a <see cref="TidReservationRecord"/>, so tids never go back;</item>
/// <item>the after-commit actions of committed transactions in a sealed part that no log says were
/// delivered, as <see cref="AfterCommitRecord"/>s (their decisions restated with the others), and the
/// <see cref="DeliveredRecord"/> notes in a sealed part of actions whose records stay.</item>
/// </list>
/// A previous checkpoint's decisions in a sealed part are written again only for records that stay
/// (in another silo's log, or after the seal): after a settled round nothing still to be written
/// depends on them (the remarks of <see cref="Checkpointer"/> say why), so they do not pile up.
/// </remarks>
internal sealed class CheckpointContent
{
    /// <summary>Most ids per <see cref="CommittedDecisionsRecord"/>, so no record grows past what a storage takes in one piece.</summary>
    internal const int IdsPerRecord = 4096;

    private CheckpointContent(List<CommitRecord> states, Dictionary<ActorId, CommittedState> atRest, List<CommittedDecisionsRecord> decisions, List<LogRecord> actions, TidReservationRecord maxTid, int recordsRead, int sealedRecords)
    {
        States = states;
        AtRest = atRest;
        Decisions = decisions;
        Actions = actions;
        MaxTid = maxTid;
        RecordsRead = recordsRead;
        SealedRecords = sealedRecords;
    }

    /// <summary>The states of <see cref="AtRest"/> as Commit records, for a silo without a store of states at rest: each whole state, then the deltas that follow it, if any.</summary>
    public IReadOnlyList<CommitRecord> States { get; }

    /// <summary>
    /// Each actor with a committed state in a sealed part, at the highest such version (perhaps
    /// <see cref="CommittedState.OnBaseAtRest"/>, for the actor's row to complete).
    /// </summary>
    public IReadOnlyDictionary<ActorId, CommittedState> AtRest { get; }

    /// <summary>The committed decisions still needed.</summary>
    public IReadOnlyList<CommittedDecisionsRecord> Decisions { get; }

    /// <summary>The after-commit actions still owed, and the delivery notes still needed (<see cref="AfterCommitRecord"/>, <see cref="DeliveredRecord"/>).</summary>
    public IReadOnlyList<LogRecord> Actions { get; }

    /// <summary>The highest tid in the logs.</summary>
    public TidReservationRecord MaxTid { get; }

    /// <summary>How many records were read, over all logs.</summary>
    public int RecordsRead { get; }

    /// <summary>How many records lie in this silo's sealed parts (those the round truncates).</summary>
    public int SealedRecords { get; }

    /// <summary>
    /// The checkpoint of round <paramref name="round"/> for the silo writing <paramref name="ownLogs"/>,
    /// from <paramref name="logs"/> (every log of the storage). A log of its own without the round's
    /// seal has nothing sealed.
    /// </summary>
    public static CheckpointContent Of(long round, IReadOnlyList<(string Name, List<LogRecord> Records)> logs, IReadOnlySet<string> ownLogs)
    {
        var builder = new Builder(round, ownLogs);
        foreach (var (name, records) in logs)
        {
            for (var i = 0; i < records.Count; i++)
            {
                builder.FirstPass(name, i, records[i].Kind, records[i].Tid);
                builder.Evaluator.AddDecision(records[i]);
            }
        }

        builder.Evaluator.Decide();
        foreach (var (name, records) in logs)
        {
            for (var i = 0; i < records.Count; i++)
            {
                builder.SecondPass(name, i, records[i]);
            }
        }

        return builder.Finish(logs.Sum(l => l.Records.Count));
    }

    /// <summary>
    /// The same, read from every Snapper log in <paramref name="storage"/> in two passes
    /// (<see cref="LogScan"/>) without holding the records; the second pass reads as far as the first.
    /// </summary>
    public static async Task<CheckpointContent> ReadAsync(long round, ILogStorage storage, IReadOnlySet<string> ownLogs, CancellationToken cancellationToken)
    {
        var builder = new Builder(round, ownLogs);
        var counts = await LogScan.TwiceAsync(
            storage,
            (log, index, record) =>
            {
                var (kind, tid) = LogRecordCodec.Peek(record);
                builder.FirstPass(log, index, kind, tid);
                builder.Evaluator.AddDecision(record);
            },
            builder.Evaluator.Decide,
            (log, index, record) => builder.SecondPass(log, index, LogRecordCodec.Decode(record)),
            cancellationToken);
        return builder.Finish(counts.Values.Sum());
    }

    /// <summary>
    /// Computes a checkpoint while the logs pass by twice, in the same order: the first pass finds
    /// each own log's seal (and feeds the <see cref="Evaluator"/> its decisions), the second sorts
    /// every record by which side of its log's seal it lies on.
    /// </summary>
    private sealed class Builder(long round, IReadOnlySet<string> ownLogs)
    {
        public LogEvaluationBuilder Evaluator { get; } = new(keepHistory: true);

        private readonly Dictionary<string, int> seals = new(StringComparer.Ordinal);
        private readonly SortedSet<long> acts = [];
        private readonly SortedSet<long> batches = [];

        // The ACTs and batches that records this round keeps count by: a Prepare or BatchComplete
        // needs its transaction's decision, a CoordCommit or BatchCommit its dependencies'.
        private readonly HashSet<long> actsKept = [];
        private readonly HashSet<long> batchesKept = [];

        // The highest committed version of each actor's state in a sealed part: the checkpoint
        // must restate it, or truncating would lose it.
        private readonly Dictionary<ActorId, long> sealedVersions = [];

        // An earlier checkpoint's decisions in a sealed part: written again only for a record that
        // stays (the log of a silo that no longer runs, say), never merely carried along; which
        // records stay is known only at the end of the second pass.
        private readonly List<CommittedDecisionsRecord> earlier = [];

        // After-commit actions: those of committed transactions in a sealed part (restated unless
        // delivered), the delivery notes there (restated for actions whose records stay), and the
        // actions of the records that stay.
        private readonly List<AfterCommitRecord> sealedActions = [];
        private readonly List<AfterCommitId> sealedDelivered = [];
        private readonly HashSet<AfterCommitId> keptActions = [];

        /// <summary>Pass 1: the last seal of this round in an own log ends its sealed part.</summary>
        public void FirstPass(string log, int index, LogRecordKind kind, long tid)
        {
            if (kind == LogRecordKind.CheckpointSeal && tid == round && ownLogs.Contains(log))
            {
                seals[log] = index;
            }
        }

        /// <summary>Pass 2, after <see cref="LogEvaluationBuilder.Decide"/>.</summary>
        public void SecondPass(string log, int index, LogRecord record)
        {
            var committed = Evaluator.AddState(record);

            if (index >= seals.GetValueOrDefault(log))
            {
                Kept(record);
                return;
            }

            switch (record)
            {
                case PrepareRecord r:
                    Sealed(r.Actor, committed, r.Version);
                    break;
                case BatchCompleteRecord r:
                    Sealed(r.Actor, committed, r.Version);
                    break;
                case CommitRecord r:
                    Sealed(r.Actor, committed, r.Version);
                    break;
                case CoordCommitRecord r when Evaluator.CommittedActs.Contains(r.Tid):
                    acts.Add(r.Tid);
                    break;
                case BatchCommitRecord r when Evaluator.CommittedBatches.Contains(r.Tid):
                    batches.Add(r.Tid);
                    break;
                case CommittedDecisionsRecord r:
                    earlier.Add(r);
                    break;
                case AfterCommitRecord r when (r.Batch ? Evaluator.CommittedBatches : Evaluator.CommittedActs).Contains(r.Tid):
                    sealedActions.Add(r);
                    break;
                case DeliveredRecord r:
                    sealedDelivered.AddRange(r.Actions);
                    break;
            }
        }

        public CheckpointContent Finish(int recordsRead)
        {
            // Each actor with a committed state in a sealed part, at the highest such version: the
            // round settled every transaction there before it read, so that version and those below
            // it were decided and appended before anything was read, and their last records are
            // their states. A version read after a seal may still be logged again (a PACT's abort
            // takes its write back), and stays in the logs.
            var evaluation = Evaluator.Result();
            var atRest = sealedVersions.ToDictionary(v => v.Key, v => Evaluator.Through(v.Key, v.Value)!.Value); // pass 2 read each

            foreach (var r in earlier)
            {
                acts.UnionWith(r.Acts.Where(actsKept.Contains));
                batches.UnionWith(r.Batches.Where(batchesKept.Contains));
            }

            if (evaluation.CommittedBatches.Count > 0)
            {
                batches.Add(evaluation.CommittedBatches.Max());
            }

            var actions = new List<LogRecord>();
            foreach (var r in sealedActions)
            {
                if (r.Actions.Where(a => !Evaluator.Delivered.Contains(a.Id)).ToImmutableArray() is { Length: > 0 } owed)
                {
                    actions.Add(r with { Actions = owed });
                    (r.Batch ? batches : acts).Add(r.Tid); // it counts only with its decision
                }
            }

            foreach (var chunk in sealedDelivered.Where(keptActions.Contains).Chunk(IdsPerRecord))
            {
                actions.Add(new DeliveredRecord(chunk.Max(id => id.Tid), [.. chunk]));
            }

            var states = atRest.SelectMany(a => StateRecords(round, a.Key, a.Value)).ToList();
            var decisions = new List<CommittedDecisionsRecord>();
            foreach (var chunk in acts.Chunk(IdsPerRecord))
            {
                decisions.Add(new CommittedDecisionsRecord(round) { Acts = [.. chunk] });
            }

            foreach (var chunk in batches.Chunk(IdsPerRecord))
            {
                decisions.Add(new CommittedDecisionsRecord(round) { Batches = [.. chunk] });
            }

            return new CheckpointContent(states, atRest, decisions, actions, new TidReservationRecord(evaluation.MaxTid), recordsRead, seals.Values.Sum());
        }

        private void Sealed(ActorId actor, bool committed, long version)
        {
            if (committed && version > sealedVersions.GetValueOrDefault(actor))
            {
                sealedVersions[actor] = version;
            }
        }

        private void Kept(LogRecord record)
        {
            switch (record)
            {
                case PrepareRecord r:
                    actsKept.Add(r.Tid);
                    break;
                case CoordCommitRecord r:
                    actsKept.UnionWith(r.DependsOn);
                    break;
                case BatchCompleteRecord r:
                    batchesKept.Add(r.Bid);
                    break;
                case BatchCommitRecord r when r.DependsOn != 0:
                    batchesKept.Add(r.DependsOn);
                    break;
                case AfterCommitRecord r:
                    (r.Batch ? batchesKept : actsKept).Add(r.Tid);
                    keptActions.UnionWith(r.Actions.Select(a => a.Id));
                    break;
            }
        }
    }

    /// <summary><paramref name="actor"/>'s <paramref name="state"/> as Commit records of round <paramref name="round"/>: the whole state, then each delta after it.</summary>
    internal static IEnumerable<CommitRecord> StateRecords(long round, ActorId actor, CommittedState state)
    {
        if (!state.State.IsEmpty)
        {
            yield return new CommitRecord(round, actor, state.State) { Version = state.WholeVersion };
        }

        var version = state.WholeVersion;
        foreach (var delta in state.Deltas.IsDefault ? [] : state.Deltas)
        {
            yield return new CommitRecord(round, actor, delta) { Version = ++version, Delta = true };
        }
    }
}

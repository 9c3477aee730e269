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
/// <item>for every actor with a state in a sealed part (a Prepare, BatchComplete or Commit record,
/// whether it committed or not), its last committed state over all logs, as a Commit record (for an
/// <see cref="IDeltaState{TSelf, TDelta}"/> state, the last whole state and a Commit record per delta
/// after it: the checkpoint cannot apply them, it does not know the type);</item>
/// <item>the committed ACTs and batches whose CoordCommit or BatchCommit is in a sealed part, and
/// the highest committed batch, as <see cref="CommittedDecisionsRecord"/>s: records left in other
/// logs, or after the seal, may still count by them;</item>
/// <item>the highest tid in any log, as a <see cref="TidReservationRecord"/>, so tids never go back.</item>
/// </list>
/// A previous checkpoint's decisions in a sealed part are written again only for records that stay
/// (in another silo's log, or after the seal): after a settled round nothing still to be written
/// depends on them (the remarks of <see cref="Checkpointer"/> say why), so they do not pile up.
/// </remarks>
internal sealed class CheckpointContent
{
    /// <summary>Most ids per <see cref="CommittedDecisionsRecord"/>, so no record grows past what a storage takes in one piece.</summary>
    internal const int IdsPerRecord = 4096;

    private CheckpointContent(List<CommitRecord> states, List<CommittedDecisionsRecord> decisions, TidReservationRecord maxTid, int recordsRead, int sealedRecords)
    {
        States = states;
        Decisions = decisions;
        MaxTid = maxTid;
        RecordsRead = recordsRead;
        SealedRecords = sealedRecords;
    }

    /// <summary>Each actor's last committed state as Commit records: its whole state, then the deltas that follow it, if any.</summary>
    public IReadOnlyList<CommitRecord> States { get; }

    /// <summary>The committed decisions still needed.</summary>
    public IReadOnlyList<CommittedDecisionsRecord> Decisions { get; }

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
        var all = logs.SelectMany(l => l.Records).ToList();
        var evaluation = LogEvaluation.Of(all);
        var seals = logs.ToDictionary(l => l.Name, l => ownLogs.Contains(l.Name) ? Math.Max(l.Records.FindLastIndex(r => r is CheckpointSealRecord s && s.Tid == round), 0) : 0, StringComparer.Ordinal);
        var (actsKept, batchesKept) = ReferencedByKeptRecords(logs, seals);
        var actors = new HashSet<ActorId>();
        var acts = new SortedSet<long>();
        var batches = new SortedSet<long>();
        foreach (var (name, records) in logs)
        {
            for (var i = 0; i < seals[name]; i++)
            {
                switch (records[i])
                {
                    case PrepareRecord r:
                        actors.Add(r.Actor);
                        break;
                    case BatchCompleteRecord r:
                        actors.Add(r.Actor);
                        break;
                    case CommitRecord r:
                        actors.Add(r.Actor);
                        break;
                    case CoordCommitRecord r when evaluation.CommittedActs.Contains(r.Tid):
                        acts.Add(r.Tid);
                        break;
                    case BatchCommitRecord r when evaluation.CommittedBatches.Contains(r.Tid):
                        batches.Add(r.Tid);
                        break;
                    case CommittedDecisionsRecord r:
                        // An earlier checkpoint's: written again only for a record that stays (the
                        // log of a silo that no longer runs, say), never merely carried along.
                        acts.UnionWith(r.Acts.Where(actsKept.Contains));
                        batches.UnionWith(r.Batches.Where(batchesKept.Contains));
                        break;
                }
            }
        }

        if (evaluation.CommittedBatches.Count > 0)
        {
            batches.Add(evaluation.CommittedBatches.Max());
        }

        var states = actors
            .Where(evaluation.States.ContainsKey)
            .SelectMany(actor => StateRecords(round, actor, evaluation.States[actor]))
            .ToList();
        var decisions = new List<CommittedDecisionsRecord>();
        foreach (var chunk in acts.Chunk(IdsPerRecord))
        {
            decisions.Add(new CommittedDecisionsRecord(round) { Acts = [.. chunk] });
        }

        foreach (var chunk in batches.Chunk(IdsPerRecord))
        {
            decisions.Add(new CommittedDecisionsRecord(round) { Batches = [.. chunk] });
        }

        return new CheckpointContent(states, decisions, new TidReservationRecord(evaluation.MaxTid), all.Count, seals.Values.Sum());
    }

    // The ACTs and batches that records this round keeps count by: a Prepare or BatchComplete
    // needs its transaction's decision, a CoordCommit or BatchCommit its dependencies'.
    private static (HashSet<long> Acts, HashSet<long> Batches) ReferencedByKeptRecords(IReadOnlyList<(string Name, List<LogRecord> Records)> logs, Dictionary<string, int> seals)
    {
        var (acts, batches) = (new HashSet<long>(), new HashSet<long>());
        foreach (var (name, records) in logs)
        {
            for (var i = seals[name]; i < records.Count; i++)
            {
                switch (records[i])
                {
                    case PrepareRecord r:
                        acts.Add(r.Tid);
                        break;
                    case CoordCommitRecord r:
                        acts.UnionWith(r.DependsOn);
                        break;
                    case BatchCompleteRecord r:
                        batches.Add(r.Bid);
                        break;
                    case BatchCommitRecord r when r.DependsOn != 0:
                        batches.Add(r.DependsOn);
                        break;
                }
            }
        }

        return (acts, batches);
    }

    private static IEnumerable<CommitRecord> StateRecords(long round, ActorId actor, CommittedState state)
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

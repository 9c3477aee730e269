using Snapper.Logging;

namespace Snapper.Recovery;

/// <summary>
/// Builds a <see cref="LogEvaluation"/> in its two passes (see its remarks), fed one record at a
/// time so nobody has to hold the logs: <see cref="AddDecision(LogRecord)"/> for every record, then
/// <see cref="Decide"/>, then <see cref="AddState(LogRecord, string)"/> for the same records, then
/// <see cref="Result"/>. The span overloads take encoded records and decode only those the pass
/// uses (a pass 1 decodes decisions only; pass 2 the states that count). With
/// <c>keepHistory</c>, every committed version read is kept (<see cref="Through"/>), not only
/// those from the last whole state on.
/// </summary>
internal sealed class LogEvaluationBuilder(bool keepHistory = false)
{
    private readonly Dictionary<long, CoordCommitRecord> coordCommits = [];
    private readonly List<BatchCommitRecord> batchCommits = [];
    private readonly HashSet<long> decidedActs = [];
    private readonly HashSet<long> decidedBatches = [];
    private readonly Dictionary<ActorId, StateChain> chains = [];
    private readonly Dictionary<AfterCommitId, (string? Log, AfterCommitAction Action)> committedActions = [];
    private readonly HashSet<AfterCommitId> delivered = [];
    private HashSet<long>? committedActs;
    private HashSet<long>? committedBatches;
    private long maxTid;

    /// <summary>The ACTs that committed; known from <see cref="Decide"/> on.</summary>
    public IReadOnlySet<long> CommittedActs => committedActs ?? throw NotDecided();

    /// <summary>The after-commit actions noted delivered; known from <see cref="Decide"/> on (pass 1 gathers them).</summary>
    public IReadOnlySet<AfterCommitId> Delivered => delivered;

    /// <summary>The PACT batches that committed; known from <see cref="Decide"/> on.</summary>
    public IReadOnlySet<long> CommittedBatches => committedBatches ?? throw NotDecided();

    /// <summary>Pass 1: a record, which counts if it is a decision.</summary>
    public void AddDecision(LogRecord record)
    {
        maxTid = Math.Max(maxTid, record.Tid);
        switch (record)
        {
            case CoordCommitRecord c:
                coordCommits[c.Tid] = c;
                break;
            case BatchCommitRecord b:
                batchCommits.Add(b);
                break;
            case CommittedDecisionsRecord d:
                decidedActs.UnionWith(d.Acts);
                decidedBatches.UnionWith(d.Batches);
                break;
            case DeliveredRecord done:
                delivered.UnionWith(done.Actions); // known before pass 2, which then keeps only what is owed
                break;
        }
    }

    /// <summary>Pass 1 on an encoded record: only the decisions are decoded.</summary>
    public void AddDecision(ReadOnlySpan<byte> record)
    {
        var (kind, tid) = LogRecordCodec.Peek(record);
        maxTid = Math.Max(maxTid, tid);
        if (kind is LogRecordKind.CoordCommit or LogRecordKind.BatchCommit or LogRecordKind.CommittedDecisions or LogRecordKind.Delivered)
        {
            AddDecision(LogRecordCodec.Decode(record));
        }
    }

    /// <summary>Ends pass 1: which ACTs and batches committed.</summary>
    public void Decide()
    {
        committedActs = LogEvaluation.CommittedActsOf(coordCommits, decidedActs);
        committedBatches = LogEvaluation.CommittedBatchesOf(batchCommits, decidedBatches);
    }

    /// <summary>
    /// Pass 2: a record, which counts if it holds a committed state; returns whether it did. It also
    /// gathers the after-commit actions of committed transactions, in <paramref name="log"/>, that
    /// pass 1 found no note of delivery for.
    /// </summary>
    public bool AddState(LogRecord record, string? log = null)
    {
        switch (record)
        {
            case AfterCommitRecord actions when (actions.Batch ? CommittedBatches : CommittedActs).Contains(actions.Tid):
                foreach (var action in actions.Actions)
                {
                    if (!delivered.Contains(action.Id))
                    {
                        committedActions.TryAdd(action.Id, (log, action));
                    }
                }

                return false;
            case CommitRecord { State.IsEmpty: false } commit:
                Offer(commit.Actor, commit.Version, commit.Delta, commit.State);
                return true;
            case PrepareRecord prepare when CommittedActs.Contains(prepare.Tid):
                Offer(prepare.Actor, prepare.Version, prepare.Delta, prepare.State);
                return true;
            case BatchCompleteRecord complete when !complete.State.IsEmpty && CommittedBatches.Contains(complete.Bid):
                Offer(complete.Actor, complete.Version, complete.Delta, complete.State);
                return true;
            default:
                return false;
        }
    }

    /// <summary>Pass 2 on an encoded record of <paramref name="log"/>: only a state that may count, and after-commit actions, are decoded.</summary>
    public void AddState(ReadOnlySpan<byte> record, string? log = null)
    {
        var (kind, tid) = LogRecordCodec.Peek(record);
        var counts = kind switch
        {
            LogRecordKind.Commit => true,
            // Its decider's flag is the byte after the header: ACT (0) or batch (1).
            LogRecordKind.AfterCommit => record.Length > 10 && (record[10] == 1 ? CommittedBatches : CommittedActs).Contains(tid),
            LogRecordKind.Prepare => CommittedActs.Contains(tid),
            LogRecordKind.BatchComplete => CommittedBatches.Contains(tid), // a BatchComplete's tid is its bid
            _ => false,
        };
        if (counts)
        {
            AddState(LogRecordCodec.Decode(record), log);
        }
    }

    // The after-commit actions of committed transactions not yet delivered (pass 2 kept only those), with the log each is in.
    private List<(string? Log, AfterCommitAction Action)> Owed() => [.. committedActions.Values];

    /// <summary>Ends pass 2: each actor's newest committed state (<see cref="StateChain.Last"/>).</summary>
    public LogEvaluation Result() =>
        new(chains.ToDictionary(c => c.Key, c => c.Value.Last()), committedActs ?? throw NotDecided(), committedBatches!, maxTid) { Owed = Owed() };

    /// <summary>
    /// After pass 2 (with <c>keepHistory</c>): <paramref name="actor"/>'s committed state at
    /// <paramref name="version"/>, from the versions read up to it; null if they do not reach it.
    /// </summary>
    public CommittedState? Through(ActorId actor, long version) =>
        chains.TryGetValue(actor, out var chain) ? chain.Through(version) : null;

    private static InvalidOperationException NotDecided() => new("The decisions are not known before the first pass has ended (Decide).");

    private void Offer(ActorId actor, long version, bool delta, ReadOnlyMemory<byte> state)
    {
        if (!chains.TryGetValue(actor, out var chain))
        {
            chains[actor] = chain = new StateChain(keepHistory);
        }

        chain.Offer(version, delta, state);
    }
}

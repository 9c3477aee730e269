using System.Collections.Immutable;

using Snapper.Logging;

namespace Snapper.Recovery;

/// <summary>
/// What a set of logs says (Snapper §4.2.5, §4.3.4, §4.4.5): which ACTs and PACT batches committed,
/// each actor's last committed state, and the highest tid. Recovery applies it at start-up; a
/// checkpoint computes it to write what the records it truncates said.
/// </summary>
/// <remarks>
/// Pass 1 collects the decisions: CoordCommit (an ACT committed), BatchCommit (a PACT batch
/// committed) and a checkpoint's <see cref="CommittedDecisionsRecord"/>. Pass 2 keeps, per actor,
/// the committed state with the highest version (for an <see cref="IDeltaState{TSelf, TDelta}"/>
/// state, the last whole one and the deltas that follow it): a Commit record with a state (a one-phase commit,
/// or a checkpoint's), a Prepare whose tid committed, or a BatchComplete whose batch committed. A
/// Prepare with no CoordCommit, or a BatchComplete with no BatchCommit, is aborted: presumed abort,
/// and the process that could still have decided them is gone. Of equal versions the one read last
/// wins (a PACT's abort logs the states it takes back again, with the same version).
/// </remarks>
internal sealed class LogEvaluation
{
    internal LogEvaluation(Dictionary<ActorId, CommittedState> states, HashSet<long> acts, HashSet<long> batches, long maxTid)
    {
        States = states;
        CommittedActs = acts;
        CommittedBatches = batches;
        MaxTid = maxTid;
    }

    /// <summary>Each actor's last committed state.</summary>
    public IReadOnlyDictionary<ActorId, CommittedState> States { get; }

    /// <summary>The ACTs that committed.</summary>
    public IReadOnlySet<long> CommittedActs { get; }

    /// <summary>The PACT batches that committed.</summary>
    public IReadOnlySet<long> CommittedBatches { get; }

    /// <summary>The highest tid or bid in any record (0 for none).</summary>
    public long MaxTid { get; }

    /// <summary>
    /// The after-commit actions of committed transactions that no <see cref="DeliveredRecord"/>
    /// says were delivered, each with the log that holds it (null where the records were given without names).
    /// </summary>
    public IReadOnlyList<(string? Log, AfterCommitAction Action)> Owed { get; init; } = [];

    /// <summary>Evaluates <paramref name="records"/>, every log's in its own order (logs one after another).</summary>
    public static LogEvaluation Of(IReadOnlyList<LogRecord> records)
    {
        var evaluator = new LogEvaluationBuilder();
        foreach (var record in records)
        {
            evaluator.AddDecision(record);
        }

        evaluator.Decide();
        foreach (var record in records)
        {
            evaluator.AddState(record);
        }

        return evaluator.Result();
    }

    /// <summary>
    /// Evaluates every Snapper log in <paramref name="storage"/>, reading it twice (<see cref="LogScan"/>)
    /// instead of holding its records; the second pass reads as far as the first did.
    /// </summary>
    /// <remarks>
    /// Where other silos append to the logs meanwhile, one log read after another is no consistent
    /// cut (a decision appended to a log already read, a state built on it in a log read later): an
    /// actor's versions may then have a gap, as they may where a checkpoint moved versions to the
    /// store of states at rest; either way its state past the gap rests on one that another holder
    /// completes (<see cref="StateChain.Last"/>).
    /// </remarks>
    /// <param name="storage">The logs.</param>
    /// <param name="cancellationToken">Stops the read.</param>
    /// <returns>The evaluation, how many records the logs held, and whether a checkpoint round truncated any log (it begins with the round's seal).</returns>
    public static async Task<(LogEvaluation Evaluation, int Records, bool Checkpointed)> ReadAsync(ILogStorage storage, CancellationToken cancellationToken)
    {
        var evaluator = new LogEvaluationBuilder();
        var checkpointed = false;
        var counts = await LogScan.TwiceAsync(
            storage,
            (_, index, record) =>
            {
                checkpointed |= index == 0 && LogRecordCodec.Peek(record).Kind == LogRecordKind.CheckpointSeal;
                evaluator.AddDecision(record);
            },
            evaluator.Decide,
            (log, _, record) => evaluator.AddState(record, log),
            cancellationToken);
        return (evaluator.Result(), counts.Values.Sum(), checkpointed);
    }

    /// <summary>
    /// The PACT batches that committed: a BatchCommit counts only if the batch it depends on
    /// committed too (a coordinator logs BatchCommit as soon as the previous batch decided, before
    /// that decision is durable). A dependency is always an earlier bid, so one pass in bid order decides.
    /// </summary>
    /// <param name="batchCommits">The BatchCommit records.</param>
    /// <param name="decided">Batches a checkpoint recorded as committed (their records are gone).</param>
    internal static HashSet<long> CommittedBatchesOf(IEnumerable<BatchCommitRecord> batchCommits, IEnumerable<long>? decided = null)
    {
        var committed = new HashSet<long>(decided ?? []);
        foreach (var record in batchCommits.OrderBy(b => b.Bid))
        {
            if (record.DependsOn == 0 || committed.Contains(record.DependsOn))
            {
                committed.Add(record.Bid);
            }
        }

        return committed;
    }

    /// <summary>
    /// The ACTs that committed: a CoordCommit counts only if every ACT it depends on committed too
    /// (early lock release logs a commit before its dependencies' commits are durable). The
    /// dependencies form no cycle; this walks them with an explicit stack, since chains can be long.
    /// </summary>
    /// <param name="coordCommits">The CoordCommit records by tid.</param>
    /// <param name="decided">ACTs a checkpoint recorded as committed (their records are gone).</param>
    internal static HashSet<long> CommittedActsOf(IReadOnlyDictionary<long, CoordCommitRecord> coordCommits, IEnumerable<long>? decided = null)
    {
        var verdict = new Dictionary<long, bool>(coordCommits.Count);
        foreach (var tid in decided ?? [])
        {
            verdict[tid] = true;
        }

        var stack = new Stack<long>();
        foreach (var start in coordCommits.Keys)
        {
            stack.Push(start);
            while (stack.Count > 0)
            {
                var tid = stack.Peek();
                if (verdict.ContainsKey(tid))
                {
                    stack.Pop();
                    continue;
                }

                if (!coordCommits.TryGetValue(tid, out var record))
                {
                    verdict[tid] = false; // its commit never reached the log: presumed aborted
                    stack.Pop();
                    continue;
                }

                var pending = false;
                var committed = true;
                foreach (var dependency in record.DependsOn)
                {
                    if (!verdict.TryGetValue(dependency, out var known))
                    {
                        stack.Push(dependency);
                        pending = true;
                    }
                    else
                    {
                        committed &= known;
                    }
                }

                if (!pending)
                {
                    verdict[tid] = committed;
                    stack.Pop();
                }
            }
        }

        return [.. verdict.Where(kv => kv.Value).Select(kv => kv.Key)];
    }
}

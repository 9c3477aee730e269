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
/// wins (a PACT's abort logs the states it takes back again, with the same version; records older
/// than state versions, format versions 1 and 2, all have version 0).
/// </remarks>
internal sealed class LogEvaluation
{
    private LogEvaluation(Dictionary<ActorId, CommittedState> states, HashSet<long> acts, HashSet<long> batches, long maxTid)
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

    /// <summary>Evaluates <paramref name="records"/>, every log's in its own order (logs one after another).</summary>
    public static LogEvaluation Of(IReadOnlyList<LogRecord> records)
    {
        var coordCommits = new Dictionary<long, CoordCommitRecord>();
        var batchCommits = new List<BatchCommitRecord>();
        var decidedActs = new HashSet<long>();
        var decidedBatches = new HashSet<long>();
        long maxTid = 0;
        foreach (var record in records)
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
            }
        }

        var committedActs = CommittedActsOf(coordCommits, decidedActs);
        var committedBatches = CommittedBatchesOf(batchCommits, decidedBatches);
        var chains = new Dictionary<ActorId, StateChain>();
        foreach (var record in records)
        {
            switch (record)
            {
                case CommitRecord { State.IsEmpty: false } commit:
                    Offer(chains, commit.Actor, commit.Version, commit.Delta, commit.State);
                    break;
                case PrepareRecord prepare when committedActs.Contains(prepare.Tid):
                    Offer(chains, prepare.Actor, prepare.Version, prepare.Delta, prepare.State);
                    break;
                case BatchCompleteRecord complete when !complete.State.IsEmpty && committedBatches.Contains(complete.Bid):
                    Offer(chains, complete.Actor, complete.Version, complete.Delta, complete.State);
                    break;
            }
        }

        var states = chains.ToDictionary(c => c.Key, c => c.Value.Last(c.Key));
        return new LogEvaluation(states, committedActs, committedBatches, maxTid);
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

    private static void Offer(Dictionary<ActorId, StateChain> chains, ActorId actor, long version, bool delta, ReadOnlyMemory<byte> state)
    {
        if (!chains.TryGetValue(actor, out var chain))
        {
            chains[actor] = chain = new StateChain();
        }

        chain.Offer(version, delta, state);
    }

    /// <summary>
    /// One actor's committed states by version, of equal versions the one read last. A whole state
    /// makes every earlier version moot; deltas are kept until a whole state above them arrives.
    /// </summary>
    private sealed class StateChain
    {
        private readonly SortedList<long, (bool Delta, ReadOnlyMemory<byte> State)> versions = new();

        public void Offer(long version, bool delta, ReadOnlyMemory<byte> state)
        {
            versions[version] = (delta, state);
            if (!delta)
            {
                while (versions.Keys[0] < version)
                {
                    versions.RemoveAt(0);
                }
            }
        }

        // The last whole state and the deltas after it, which must follow it version by version: a
        // committed version's base committed before it and was logged first (write-ahead, and
        // commits on one actor are serial). The first version of all may itself be a delta, on the
        // actor's initial state (version 0: the whole state written first aborted), which the
        // returned state says with an empty whole state. Any other gap means records are missing.
        public CommittedState Last(ActorId actor)
        {
            var whole = versions.Count - 1;
            while (whole >= 0 && versions.Values[whole].Delta)
            {
                whole--;
            }

            if (whole < 0 && versions.Keys[0] != 1)
            {
                throw new InvalidDataException(
                    $"The log holds committed changes to actor {actor}'s state from version {versions.Keys[0]} but no whole state before them: records are missing.");
            }

            var deltas = ImmutableArray.CreateBuilder<ReadOnlyMemory<byte>>(versions.Count - 1 - whole);
            for (var i = whole + 1; i < versions.Count; i++)
            {
                var expected = i == 0 ? 1 : versions.Keys[i - 1] + 1;
                if (versions.Keys[i] != expected)
                {
                    throw new InvalidDataException(
                        $"The log holds a committed change to actor {actor}'s state at version {versions.Keys[i]} but none at version {expected}: records are missing.");
                }

                deltas.Add(versions.Values[i].State);
            }

            return new CommittedState(versions.Keys[^1], whole < 0 ? ReadOnlyMemory<byte>.Empty : versions.Values[whole].State, deltas.MoveToImmutable());
        }
    }
}

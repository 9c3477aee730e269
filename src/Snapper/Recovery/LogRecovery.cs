using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;
using Snapper.Coordination;
using Snapper.Diagnostics;
using Snapper.Hosting;
using Snapper.Logging;

namespace Snapper.Recovery;

/// <summary>
/// Rebuilds committed state from the logs when the silo starts (Snapper §4.2.5, §4.3.4, §4.4.5).
/// </summary>
/// <remarks>
/// <para>It reads every Snapper log in the storage, those of every silo that ever logged there: an
/// actor may have been active on several silos, and may activate on this one now. Pass 1 collects
/// the decisions: CoordCommit (an ACT committed) and BatchCommit (a PACT batch committed). Pass 2
/// keeps, per actor, the committed state with the highest version: a one-phase Commit record, a
/// Prepare whose tid has a CoordCommit, or a BatchComplete whose batch has a BatchCommit (each
/// counted only if what it depends on counted: see <see cref="CommittedActs"/> and
/// <see cref="CommittedBatches"/>). A Prepare
/// with no CoordCommit, or a BatchComplete with no BatchCommit, is aborted: presumed abort, and the
/// process that could still have decided them is gone. Records older than state versions (format
/// versions 1 and 2) all have version 0; among them the later one in the log wins, as before.</para>
/// <para>The silo joins the ring with the highest tid and bid in the logs as the ring's tid floor,
/// so tids keep increasing across restarts.</para>
/// </remarks>
internal sealed class LogRecovery(
    ILogStorage storage,
    IOptions<SnapperOptions> options,
    CommittedStates recovered,
    ILogger<LogRecovery> diagnostics) : ILifecycleParticipant<ISiloLifecycle>
{
    /// <summary>Runs with the silo's application services, before the silo becomes active and grains serve calls.</summary>
    public void Participate(ISiloLifecycle lifecycle) =>
        lifecycle.Subscribe(nameof(LogRecovery), ServiceLifecycleStage.ApplicationServices, StartAsync);

    public async Task StartAsync(CancellationToken cancellationToken)
    {
        if (options.Value.Logging == LoggingMode.None)
        {
            return;
        }

        var logs = new List<(string Name, List<LogRecord> Records)>();
        await foreach (var name in storage.ListAsync(cancellationToken))
        {
            if (!LoggerPool.IsSnapperLog(name))
            {
                continue;
            }

            var records = new List<LogRecord>();
            await foreach (var bytes in storage.ReadAsync(name, cancellationToken))
            {
                LogRecord record;
                try
                {
                    record = LogRecordCodec.Decode(bytes.Span);
                }
                catch (InvalidDataException e)
                {
                    throw new InvalidDataException($"Log '{name}' holds a record that cannot be decoded (record {records.Count}): {e.Message}", e);
                }

                records.Add(record);
                recovered.SawTid(record.Tid);
            }

            logs.Add((name, records));
        }

        var coordCommits = new Dictionary<long, CoordCommitRecord>();
        var batchCommits = new List<BatchCommitRecord>();
        foreach (var record in logs.SelectMany(l => l.Records))
        {
            switch (record)
            {
                case CoordCommitRecord c:
                    coordCommits[c.Tid] = c;
                    break;
                case BatchCommitRecord b:
                    batchCommits.Add(b);
                    break;
            }
        }

        var committedActs = CommittedActs(coordCommits);
        var committedBatches = CommittedBatches(batchCommits);
        foreach (var record in logs.SelectMany(l => l.Records))
        {
            switch (record)
            {
                case CommitRecord { State.IsEmpty: false } onePhase:
                    recovered.Offer(onePhase.Actor, new CommittedState(onePhase.Version, onePhase.State));
                    break;
                case PrepareRecord prepare when committedActs.Contains(prepare.Tid):
                    recovered.Offer(prepare.Actor, new CommittedState(prepare.Version, prepare.State));
                    break;
                case BatchCompleteRecord complete when !complete.State.IsEmpty && committedBatches.Contains(complete.Bid):
                    recovered.Offer(complete.Actor, new CommittedState(complete.Version, complete.State));
                    break;
            }
        }

        LogMessages.Recovered(diagnostics, recovered.Count, logs.Sum(l => l.Records.Count), recovered.MaxTid);
    }

    /// <summary>
    /// The PACT batches that committed: a BatchCommit counts only if the batch it depends on
    /// committed too (a coordinator logs BatchCommit as soon as the previous batch decided, before
    /// that decision is durable). A dependency is always an earlier bid, so one pass in bid order decides.
    /// </summary>
    internal static HashSet<long> CommittedBatches(IEnumerable<BatchCommitRecord> batchCommits)
    {
        var committed = new HashSet<long>();
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
    internal static HashSet<long> CommittedActs(IReadOnlyDictionary<long, CoordCommitRecord> coordCommits)
    {
        var verdict = new Dictionary<long, bool>(coordCommits.Count);
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

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
/// actor may have been active on several silos, and may activate on this one now. What they say
/// (each actor's last committed state, under presumed abort) is <see cref="LogEvaluation"/>; a
/// checkpoint's records count like the ones they replaced.</para>
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

        var logs = await ReadAllAsync(storage, cancellationToken);
        var evaluation = LogEvaluation.Of([.. logs.SelectMany(l => l.Records)]);
        recovered.SawTid(evaluation.MaxTid);
        foreach (var (actor, state) in evaluation.States)
        {
            recovered.Offer(actor, state);
        }

        LogMessages.Recovered(diagnostics, recovered.Count, logs.Sum(l => l.Records.Count), recovered.MaxTid);
    }

    /// <summary>Reads and decodes every Snapper log in <paramref name="storage"/>; a record that does not decode stops it, naming the log.</summary>
    internal static async Task<List<(string Name, List<LogRecord> Records)>> ReadAllAsync(ILogStorage storage, CancellationToken cancellationToken)
    {
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
                try
                {
                    records.Add(LogRecordCodec.Decode(bytes.Span));
                }
                catch (InvalidDataException e)
                {
                    throw new InvalidDataException($"Log '{name}' holds a record that cannot be decoded (record {records.Count}): {e.Message}", e);
                }
            }

            logs.Add((name, records));
        }

        return logs;
    }

    /// <summary>
    /// The PACT batches that committed: a BatchCommit counts only if the batch it depends on
    /// committed too (a coordinator logs BatchCommit as soon as the previous batch decided, before
    /// that decision is durable). A dependency is always an earlier bid, so one pass in bid order decides.
    /// </summary>
    /// <param name="batchCommits">The BatchCommit records.</param>
    /// <param name="decided">Batches a checkpoint recorded as committed (their records are gone).</param>
    internal static HashSet<long> CommittedBatches(IEnumerable<BatchCommitRecord> batchCommits, IEnumerable<long>? decided = null)
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
    internal static HashSet<long> CommittedActs(IReadOnlyDictionary<long, CoordCommitRecord> coordCommits, IEnumerable<long>? decided = null)
    {
        var verdict = new Dictionary<long, bool>(coordCommits.Count);
        foreach (var tid in decided ?? [])
        {
            verdict[tid] = true;
        }

        var stack = new Stack<long>();
        foreach (var start in coordCommits.Keys.Concat(verdict.Keys.ToList()))
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

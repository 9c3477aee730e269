using System.Collections.Concurrent;
using Microsoft.Extensions.Options;
using Snapper.Hosting;
using Snapper.Hybrid;

namespace Snapper.Act;

/// <summary>
/// The transactions running on this silo, by tid. A <see cref="TxnContext"/> is only honoured while
/// its transaction is <see cref="ActPhase.Running"/>: a context kept past its transaction's end is
/// rejected with a message saying so, instead of silently starting a second life.
/// </summary>
/// <remarks>
/// It also answers for commit dependencies (<see cref="ActDependency"/>), as Thorp's transaction
/// manager does: while an ACT runs, with its outcome tasks; once it has ended, from the outcomes
/// of early-lock-release ACTs it remembers for twice the transaction timeout, longer than any
/// dependent can still be validating. An ACT it has no record of is presumed aborted, as
/// recovery presumes one whose CoordCommit is not in the log.
/// </remarks>
internal sealed class ActiveTransactions(IOptions<SnapperOptions> options, TimeProvider clock)
{
    private static readonly Task<bool> Committed = Task.FromResult(true);
    private static readonly Task<bool> Aborted = Task.FromResult(false);
    private readonly ConcurrentDictionary<long, RunningAct> running = new();
    private readonly ConcurrentDictionary<long, (bool Decided, bool Durable)> ended = new();
    private readonly ConcurrentQueue<(long Tid, DateTimeOffset Until)> forget = new();
    private readonly TimeSpan retention = 2 * options.Value.TransactionTimeout;

    public int Count => running.Count;

    public RunningAct Begin(TxnContext ctx)
    {
        var act = new RunningAct(ctx.Tid);
        running[ctx.Tid] = act;
        return act;
    }

    public void Completing(long tid)
    {
        if (running.TryGetValue(tid, out var act))
        {
            act.Phase = ActPhase.Completing;
        }
    }

    /// <summary>
    /// ACT <paramref name="tid"/> has ended (its outcomes are set). With
    /// <paramref name="mayHaveDependents"/> (it released its locks early) its outcomes are kept
    /// for <see cref="WhenDecided"/> and <see cref="WhenDurable"/>.
    /// </summary>
    public void End(long tid, bool mayHaveDependents = false)
    {
        if (mayHaveDependents && running.TryGetValue(tid, out var act))
        {
            // Kept before it leaves the running set, so a dependent never finds it in neither.
            ended[tid] = (act.WhenDecided.Result, act.WhenDurable.Result);
            forget.Enqueue((tid, clock.GetUtcNow() + retention));
        }

        running.TryRemove(tid, out _);
        var now = clock.GetUtcNow();
        while (forget.TryPeek(out var oldest) && oldest.Until < now && forget.TryDequeue(out oldest))
        {
            ended.TryRemove(oldest.Tid, out _);
        }
    }

    /// <summary>True once <paramref name="dependency"/>'s commit is ordered in the log, false once it aborted (see <see cref="RunningAct.WhenDecided"/>).</summary>
    public Task<bool> WhenDecided(ActDependency dependency) =>
        running.TryGetValue(dependency.Tid, out var act) ? act.WhenDecided
        : ended.TryGetValue(dependency.Tid, out var outcome) ? (outcome.Decided ? Committed : Aborted)
        : Aborted;

    /// <summary>True once <paramref name="dependency"/>'s commit and its own dependencies' are durable, false once it aborted (see <see cref="RunningAct.WhenDurable"/>).</summary>
    public Task<bool> WhenDurable(ActDependency dependency) =>
        running.TryGetValue(dependency.Tid, out var act) ? act.WhenDurable
        : ended.TryGetValue(dependency.Tid, out var outcome) ? (outcome.Durable ? Committed : Aborted)
        : Aborted;

    /// <summary>Actor → root of ACT <paramref name="tid"/>: batch <paramref name="bid"/> was placed behind it (see <see cref="RunningAct"/>).</summary>
    public void NoteBatchBehind(long tid, long bid)
    {
        if (running.TryGetValue(tid, out var act))
        {
            act.NoteBatchBehind(bid);
        }
    }

    /// <summary>The running ACT <paramref name="tid"/> on this silo, if any.</summary>
    public RunningAct? Find(long tid) => running.TryGetValue(tid, out var act) ? act : null;

    /// <summary>Throws <see cref="SnapperException"/> unless <paramref name="ctx"/>'s transaction still runs.</summary>
    public RunningAct EnsureRunning(TxnContext ctx, string operation)
    {
        ArgumentNullException.ThrowIfNull(ctx);
        if (!running.TryGetValue(ctx.Tid, out var act))
        {
            throw new SnapperException(
                $"{operation} was given the TxnContext of {ctx}, which has already finished (committed or aborted). " +
                "A TxnContext is valid only inside its own transaction; start a new transaction instead of reusing one.");
        }

        if (act.Phase != ActPhase.Running)
        {
            throw new SnapperException(
                $"{operation} was given the TxnContext of {ctx}, which is already committing; " +
                "all calls of a transaction must finish before its first method returns.");
        }

        return act;
    }
}

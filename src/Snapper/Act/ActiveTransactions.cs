using System.Collections.Concurrent;
using Snapper.Hybrid;

namespace Snapper.Act;

/// <summary>
/// The transactions running on this silo, by tid. A <see cref="TxnContext"/> is only honoured while
/// its transaction is <see cref="ActPhase.Running"/>: a context kept past its transaction's end is
/// rejected with a message saying so, instead of silently starting a second life.
/// </summary>
internal sealed class ActiveTransactions
{
    private readonly ConcurrentDictionary<long, RunningAct> running = new();

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

    public void End(long tid) => running.TryRemove(tid, out _);

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

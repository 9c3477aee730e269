using System.Collections.Concurrent;

namespace Snapper.Act;

/// <summary>
/// The transactions running on this silo, by tid. A <see cref="TxnContext"/> is only honoured while
/// its transaction is <see cref="ActPhase.Running"/>: a context kept past its transaction's end is
/// rejected with a message saying so, instead of silently starting a second life.
/// </summary>
internal sealed class ActiveTransactions
{
    private readonly ConcurrentDictionary<long, ActPhase> phases = new();

    public void Begin(TxnContext ctx) => phases[ctx.Tid] = ActPhase.Running;

    public void Completing(long tid) => phases[tid] = ActPhase.Completing;

    public void End(long tid) => phases.TryRemove(tid, out _);

    public int Count => phases.Count;

    /// <summary>Throws <see cref="SnapperException"/> unless <paramref name="ctx"/>'s transaction still runs.</summary>
    public void EnsureRunning(TxnContext ctx, string operation)
    {
        ArgumentNullException.ThrowIfNull(ctx);
        if (!phases.TryGetValue(ctx.Tid, out var phase))
        {
            throw new SnapperException(
                $"{operation} was given the TxnContext of {ctx}, which has already finished (committed or aborted). " +
                "A TxnContext is valid only inside its own transaction; start a new transaction instead of reusing one.");
        }

        if (phase != ActPhase.Running)
        {
            throw new SnapperException(
                $"{operation} was given the TxnContext of {ctx}, which is already committing; " +
                "all calls of a transaction must finish before its first method returns.");
        }
    }
}

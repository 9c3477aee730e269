using Snapper.Checkpointing;

namespace Snapper.Act;

/// <summary>What a checkpoint round waits for here (docs/architecture.md, "Checkpoints").</summary>
internal sealed partial class ActParticipant<TState>
{
    private static readonly TimeSpan SettlePoll = TimeSpan.FromMilliseconds(20);

    /// <summary>
    /// Completes once what <paramref name="step"/> names, as it stands now, is over here; throws
    /// <see cref="TimeoutException"/> past <paramref name="until"/> (the round is then given up).
    /// </summary>
    /// <remarks>
    /// Polls: it runs once per actor per checkpoint round, and the transactions it waits for end
    /// through many paths (commit, abort, expiry, a cascade) that need not know a checkpoint waits.
    /// </remarks>
    public async Task Settle(SettleStep step, DateTimeOffset until)
    {
        Func<bool> pending;
        if (step == SettleStep.Writes)
        {
            var tids = records.Keys.ToArray();
            var newestBatch = versions.NewestUncommittedBid;
            pending = () => tids.Any(records.ContainsKey) || versions.HasUncommittedThrough(newestBatch);
        }
        else
        {
            var tids = roots.RunningTids.ToArray();
            pending = () => tids.Any(t => roots.Find(t) is not null);
        }

        while (pending())
        {
            if (runtime.Clock.GetUtcNow() > until)
            {
                throw new TimeoutException($"{Id} still had transactions of the checkpoint's step {step} running at its deadline.");
            }

            await Task.Delay(SettlePoll, runtime.Clock);
        }
    }
}

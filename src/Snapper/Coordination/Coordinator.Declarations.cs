using Snapper.Pact;

namespace Snapper.Coordination;

/// <summary>
/// A declared actor that is never called would stall its batch, and every later batch on its
/// actors, forever. While this coordinator has unresolved batches, a timer looks for one that has
/// not completed and could have run for longer than the declaration timeout, asks its stalled
/// participants which PACT it waits for, and aborts that PACT with
/// <see cref="AbortReason.DeclarationError"/> naming it (the whole batch if that PACT's abort is
/// already under way and still stalls it). A batch found held up on an actor by what is ahead of it
/// there (ACTs, an earlier batch) has its time counted afresh.
/// </summary>
internal sealed partial class Coordinator
{
    // A healthy actor answers at once; one that does not within this is taken as unresponsive.
    private const long Unresponsive = -2;
    private static readonly TimeSpan UnresponsiveAfter = TimeSpan.FromSeconds(1);
    private IGrainTimer? declarationSweep;

    private void EnsureDeclarationSweep()
    {
        if (declarationSweep is not null)
        {
            return;
        }

        var period = TimeSpan.FromTicks(Math.Clamp(settings.DeclarationTimeout.Ticks / 4, TimeSpan.FromMilliseconds(10).Ticks, TimeSpan.FromSeconds(1).Ticks));
        declarationSweep = this.RegisterGrainTimer(SweepDeclarations, period, period);
    }

    private async Task SweepDeclarations()
    {
        if (unresolved.Count == 0)
        {
            declarationSweep?.Dispose();
            declarationSweep = null;
            return;
        }

        var now = clock.GetUtcNow();
        var overdue = unresolved.Values.FirstOrDefault(b => b.Phase == BatchPhase.Emitted && now - b.RunnableSince > settings.DeclarationTimeout);
        if (overdue is null || ongoingCascade != 0)
        {
            return;
        }

        var waits = await Task.WhenAll(overdue.Pending.ToList().Select(actor => Describe(actor, overdue.Bid)));
        if (Array.Find(waits, w => w.Tid == Unresponsive) is { Description: { } silent })
        {
            // An actor whose activation is going takes no message until the calls running there
            // return, and one of them may wait for this batch: abort it, so those calls can end.
            FailBatch(overdue, 0, new TransactionAbortedException(AbortReason.Cascading, $"aborted with its batch {overdue.Bid}, which was stalled: {silent}"));
            return;
        }

        if (waits.Any(w => w.Tid == LocalSchedule.HeldUp))
        {
            // Queued behind ACTs (which have the transaction timeout) or an earlier batch (which has
            // its own declaration timeout) on some actor, its PACTs may be waiting for that actor:
            // the time it could not run does not count against their declarations.
            overdue.RunnableSince = clock.GetUtcNow();
            return;
        }

        if (Array.Exists(waits, w => w.Tid == LocalSchedule.NotArrived) && Array.TrueForAll(waits, w => w.Tid is 0 or LocalSchedule.NotArrived))
        {
            // Its BatchMsg was lost on the way to an actor (a one-way message that Orleans could not
            // forward to the actor's next activation, say), and no PACT of it waits anywhere.
            FailBatch(overdue, 0, new TransactionAbortedException(AbortReason.Cascading, $"aborted with its batch {overdue.Bid}, which was stalled: {string.Join("; ", waits.Select(w => w.Description))}"));
            return;
        }

        foreach (var (tid, description) in waits)
        {
            if (tid != 0)
            {
                var stalled = new TransactionAbortedException(
                    AbortReason.DeclarationError,
                    $"{description} within the declaration timeout of {settings.DeclarationTimeout}") { Tid = tid };
                if (overdue.PactFailures?.ContainsKey(tid) == true)
                {
                    FailBatch(overdue, 0, stalled);
                }
                else
                {
                    FailBatch(overdue, tid, stalled);
                }

                return;
            }
        }
    }

    // What the batch waits for on one actor; Unresponsive if the actor does not say within
    // UnresponsiveAfter (a deactivating activation takes no message while its calls run).
    private async Task<(long Tid, string Description)> Describe(ActorId actor, long bid)
    {
        try
        {
            return await actors.Participant(actor).DescribeWait(bid).WaitAsync(UnresponsiveAfter, clock);
        }
        catch (TimeoutException)
        {
            return (Unresponsive, $"actor {actor} did not say what it waits for within {UnresponsiveAfter}");
        }
    }
}
